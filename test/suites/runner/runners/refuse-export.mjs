import { main } from './base.mjs';

await main({ refuseExport: true });
