import { describe } from 'vitest';
import { TOOL_SERVERS_HTTP } from '../../compatibility/targets.js';
import { testEachAgainstTable } from './table-interop.js';

// The suite over Streamable HTTP against third-party servers (the official SDK's transport in
// four configurations, server-everything, the bridge mcp-proxy, a framework, and two
// implementations of their own, tmcp and mcp-lite), with the default
// --call-tools, and the comparison of what it measures with the Streamable HTTP table of
// docs/tool-server-compatibility.md. The later revisions: streamable-interop-revisions.test.ts.

describe('interop with third-party Streamable HTTP servers (docs/tool-server-compatibility.md)', () => {
  testEachAgainstTable('tool-server-http', TOOL_SERVERS_HTTP, 300_000);
});
