import { main } from './base.mjs';

// kill-at-once (its timed-out answer comes at the timeout), prompt, but its first answer (the
// warm-up's) arrives 150 ms late while the next command runs: how the harness sees a prompt
// runner when it reads that answer late on a busy machine.
await main({ killAtOnce: true, lateFirstAnswerMs: 150 });
