import { main } from './base.mjs';

main({ unknownMethodResult: true });
