import { main } from './base.mjs';

// held-lines-own-sleep that also waits for a command's pipes to close (so `sleep & echo started`
// is answered at its timeout) and answers as the command ended: the two answers still come
// a second apart at the end, which hides the wait, and the job holding the pipes is never seen.
await main({
  waitForPipes: true,
  pipeWaitNotTimedOut: true,
  bufferAnswers: true,
  heldWritesApartMs: 1000,
  ownSleep: true,
});
