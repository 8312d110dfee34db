import { main } from './streamable-base.mjs';

main({ eventIds: true, pollAnswers: 'no-retry' });
