import { main } from './base.mjs';

// The process exits on the first call of a listed tool.
main({ exitOnCall: true });
