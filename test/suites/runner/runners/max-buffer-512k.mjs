import { main } from './base.mjs';

await main({ maxBufferBytes: 512 * 1024 });
