import { main } from './base.mjs';

main({ badSchema: true });
