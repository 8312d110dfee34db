import { main } from './base.mjs';

// The first call of add with a negative number stalls the server for 5 s (a machine too busy
// to run it), longer than the test suite's reply budget for the call and the ping after it.
main({ stallOnNegative: 5000 });
