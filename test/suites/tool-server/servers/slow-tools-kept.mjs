import { main } from './base.mjs';

// slow-tool-kept (calls of the `slow` tool run on after their session closed: the flaw) whose
// other tools, the diagnostics tool too, answer 3 s late.
main({ slowAsyncCalls: 3000, slowTool: true, keepSlowCalls: true });
