import { main } from './base.mjs';

await main({ bufferAnswers: true });
