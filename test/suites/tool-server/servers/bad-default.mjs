import { main } from './base.mjs';

main({ badDefault: true });
