import { main } from './base.mjs';

await main({ versionValue: '2024-01-01' });
