import { main } from './base.mjs';

// labelled-output that frames the exit code after the output on a line of its own: the answer
// to `id -u` is "STDOUT:\n65534\nEXIT CODE:\n0\n", two bare numbers, either of which could be the uid.
await main({ labelledOutput: true, labelledExitCode: true });
