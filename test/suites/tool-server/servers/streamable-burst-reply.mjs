import { main } from './streamable-base.mjs';

// A request past 3 being answered at once gets its reply 3 s late on its open event stream:
// past the quick suite's reply budget (1.5 s), within its late window (3 x 1.5 s more).
main({ burstReplyMs: 3000 });
