import { main } from './base.mjs';

// Not a flaw: lists a read-only tool whose arguments must be long (a 66-character hash, 768
// numbers), and one whose schema no value fits.
main({ boundedArguments: true });
