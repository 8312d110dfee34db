import { main } from './base.mjs';

await main({ killGroupsAtExit: true, bufferAnswers: true });
