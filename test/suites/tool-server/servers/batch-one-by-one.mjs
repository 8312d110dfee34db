import { main } from './base.mjs';

// Speaks 2024-11-05 and 2025-03-26 and answers each member of a batch as a message of its own.
main({ knownRevisions: ['2024-11-05', '2025-03-26'], batchOneByOne: true });
