import { main } from './base.mjs';

await main({ anyTool: true, runInCwd: true });
