import { main } from './base.mjs';

// wait-for-pipes whose answers all come at the end (a buffered stdout), and whose answer is the
// command's own output (its shell exited at once): the two answers of the pipe-holder session
// arrive together, so their gap hides the wait.
await main({ waitForPipes: true, pipeWaitNotTimedOut: true, bufferAnswers: true });
