import { main } from './streamable-base.mjs';

// An initialize past 3 being answered at once comes 6 s late: past the reply budget (5 s).
main({ burstInitializeMs: 6000 });
