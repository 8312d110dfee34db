import { main } from './base.mjs';

// The first call of a listed tool is never answered, and nothing after it either.
main({ hangOnCall: true });
