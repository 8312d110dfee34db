import { main } from './base.mjs';

main({ badCursor: true });
