import { main } from './base.mjs';

main({ badCallResult: true });
