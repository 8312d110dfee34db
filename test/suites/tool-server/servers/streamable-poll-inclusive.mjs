import { main } from './streamable-base.mjs';

main({ eventIds: true, pollAnswers: true, resumeInclusive: true });
