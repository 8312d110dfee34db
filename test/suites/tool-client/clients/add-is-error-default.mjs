import { main } from './base.mjs';

main({ addIsErrorDefault: true });
