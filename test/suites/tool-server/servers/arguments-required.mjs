import { main } from './base.mjs';

main({ argumentsRequired: true });
