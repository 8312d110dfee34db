import { expect, test } from 'vitest';
import { DEPS } from '../../src/cli/main.js';
import { defaultRevisionFor } from '../../src/protocol/mcp/transport-revision.js';
import { cli } from './fake-suites.js';

test('tool-client --help gives the --protocol default of each transport, the one the client asks for', async () => {
  const run = await cli(['tool-client', '--help'], { deps: DEPS });
  expect(run.code).toBe(0);
  // Commander wraps the description: compare it as one line.
  const help = run.stdout.replace(/\s+/g, ' ');
  expect(help).toContain(`${defaultRevisionFor('stdio')} (default over stdio and SSE)`);
  expect(defaultRevisionFor('sse')).toBe(defaultRevisionFor('stdio'));
  expect(help).toContain(`${defaultRevisionFor('http')} (default over http)`);
});
