import { main } from './base.mjs';

await main({ pingClobbers: true });
