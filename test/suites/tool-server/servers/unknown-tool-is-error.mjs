import { main } from './base.mjs';

main({ unknownToolIsError: true });
