import { main } from './base.mjs';

main({ noExitOnEof: true });
