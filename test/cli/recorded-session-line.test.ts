import { describe, expect, test } from 'vitest';
import { recordedSessionLine } from '../../src/cli/recorded-session-line.js';
import { FIXTURE_FORMAT, FIXTURE_VERSION, ToolSession } from '../../src/fixtures/schema.js';

function session(extra: Partial<ToolSession> = {}): ToolSession {
  return ToolSession.parse({
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    kind: 'tool-session',
    transport: 'http',
    server: 'http://127.0.0.1:1/mcp',
    messages: [],
    endAtMs: 10,
    ...extra,
  });
}

describe('the line record tools prints per session', () => {
  test('a whole session: its transport, messages and file, nothing about a cut', () => {
    const line = recordedSessionLine(session(), 'out/s.json');
    expect(line).toBe('recorded http session, 0 message(s): out/s.json');
  });

  test('a session cut at the limit says so, with the bytes not recorded and why', () => {
    const line = recordedSessionLine(
      session({ truncated: true, unrecordedBytes: 4096 }),
      'out/s.json',
      'past the recording limit of 67108864 bytes',
    );
    expect(line).toBe(
      'recorded http session, 0 message(s), recording cut (marked truncated, 4096 bytes relayed but not recorded): past the recording limit of 67108864 bytes: out/s.json',
    );
  });

  test('a session marked truncated without a count or reason still says it was cut', () => {
    expect(recordedSessionLine(session({ truncated: true }), undefined)).toBe(
      'recorded http session, 0 message(s), recording cut (marked truncated): (not written)',
    );
  });
});
