import { main } from './streamable-base.mjs';

main({ eventIds: true, pollAnswers: true, idPrefix: '\u4e2d' });
