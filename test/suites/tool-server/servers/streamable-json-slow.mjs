import { main } from './streamable-base.mjs';

// Each answer 2 s late: longer than the POST budget of the tests' suite (httpMs 1500), within
// its reply budget (5 s).
main({ json: true, answerDelayMs: 2000 });
