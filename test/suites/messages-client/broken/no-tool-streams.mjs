import { main } from './base.mjs';

await main({ noToolStreams: true });
