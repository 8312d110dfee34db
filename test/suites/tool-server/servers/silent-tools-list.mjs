import { main } from './base.mjs';

// Answers everything but tools/list, which it leaves unanswered.
main({ silentToolsList: true });
