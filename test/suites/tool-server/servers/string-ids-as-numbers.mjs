import { main } from './base.mjs';

main({ stringIdsAsNumbers: true });
