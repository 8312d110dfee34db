import { main } from './base.mjs';

// Serves its first two starts (WIRECHECK_TEST_STARTS_FILE counts them), then dies at every start.
main({ diesFromStart: 3 });
