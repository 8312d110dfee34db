import { main } from './base.mjs';

await main({ failureStderrOnly: true });
