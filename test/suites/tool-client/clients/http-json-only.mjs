import { main } from './base.mjs';

main({ httpJsonOnly: true });
