import { main } from './base.mjs';

// A halt reported as an uncaught error would be: a stack trace, and no words asking anyone.
await main({ breakerStackTrace: new Error('3 consecutive commands failed').stack });
