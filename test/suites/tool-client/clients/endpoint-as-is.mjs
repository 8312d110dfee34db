import { main } from './base.mjs';

await main({ endpointAsIs: true });
