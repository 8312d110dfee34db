import { main } from './base.mjs';

// Pipelines tools/list before the initialize result (MCP: SHOULD NOT), sends initialized after it.
await main({ pipelineList: true });
