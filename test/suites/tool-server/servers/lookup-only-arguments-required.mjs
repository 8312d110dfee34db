import { main } from './base.mjs';

main({ lookupOnly: true, argumentsRequired: true });
