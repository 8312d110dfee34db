import { main } from './streamable-base.mjs';

main({ eventIds: true, resumeNothing: true });
