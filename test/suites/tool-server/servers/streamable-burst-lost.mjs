import { main } from './streamable-base.mjs';

// A request past 3 being answered at once never gets its reply; its event stream stays open.
main({ burstReplyLost: true });
