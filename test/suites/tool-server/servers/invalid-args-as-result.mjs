import { main } from './base.mjs';

main({ invalidArgsAsResult: true });
