import { main } from './base.mjs';

main({ unknownToolSuccess: true });
