import { describe, expect, test } from 'vitest';
import { TOOL_SERVERS_HTTP } from '../../compatibility/targets.js';
import { runAgainst } from './helpers.js';
import { testEachAgainstTable } from './table-interop.js';

// The suite over Streamable HTTP against third-party servers (the official SDK's transport in
// four configurations, server-everything, the bridge mcp-proxy, a framework, and two
// implementations of their own, tmcp and mcp-lite, and @hono/mcp's transport), with the default
// --call-tools, and the comparison of what it measures with the Streamable HTTP table of
// docs/tool-server-compatibility.md. The later revisions: streamable-interop-revisions.test.ts.

describe('interop with third-party Streamable HTTP servers (docs/tool-server-compatibility.md)', () => {
  testEachAgainstTable('tool-server-http', TOOL_SERVERS_HTTP, 300_000);
});

test('a notification answered 202 with the body null is named as a 202 with a body', async () => {
  const started = await TOOL_SERVERS_HTTP['hono http']!();
  try {
    const result = await runAgainst(started.target, { only: ['tool-server.http.notification-202'] });
    const check = result.checks.find((c) => c.id === 'tool-server.http.notification-202')!;
    expect(check.status).toBe('fail');
    // notifications/initialized is judged first: the server answers every notification so.
    expect(check.message).toContain(
      'the POST of notifications/initialized was answered HTTP 202 with a body (null), not 202 with no body',
    );
  } finally {
    await started.close();
  }
}, 60_000);
