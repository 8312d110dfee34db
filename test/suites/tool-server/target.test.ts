import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { UsageError } from '../../../src/harness/errors.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { targetArgs, toolServerTargetFromOptions } from '../../../src/suites/tool-server/index.js';
import { freePort, testSuite } from './helpers.js';

describe('tool-server target options (TARGETS.md tool-server)', () => {
  test('--stdio CMD, or --sse URL with an optional --start CMD', () => {
    expect(toolServerTargetFromOptions({ stdio: 'node s.js' })).toEqual({
      kind: 'stdio',
      command: 'node s.js',
    });
    const sse = toolServerTargetFromOptions({ sse: 'http://127.0.0.1:8000/sse', start: 'node s.js' });
    expect(sse).toEqual({ kind: 'sse', url: 'http://127.0.0.1:8000/sse', start: 'node s.js' });
    expect(targetArgs(sse)).toEqual(['--sse', 'http://127.0.0.1:8000/sse', '--start', 'node s.js']);
  });

  test('--start-timeout SECONDS: how long the server may take to start, kept in the reproduce line', () => {
    const stdio = toolServerTargetFromOptions({ stdio: 'npx -y some-server', startTimeout: '45' });
    expect(stdio).toEqual({ kind: 'stdio', command: 'npx -y some-server', startTimeoutMs: 45_000 });
    expect(targetArgs(stdio)).toEqual(['--stdio', 'npx -y some-server', '--start-timeout', '45']);
    const http = toolServerTargetFromOptions({
      http: 'http://127.0.0.1:1/mcp',
      start: 's',
      startTimeout: '2.5',
    });
    expect(http).toMatchObject({ startTimeoutMs: 2500 });
    for (const bad of ['0', '-3', 'soon', '601', '']) {
      expect(() => toolServerTargetFromOptions({ stdio: 'a', startTimeout: bad })).toThrow(
        /--start-timeout takes/,
      );
    }
  });

  test('no target, both transports, --start without --sse, or a URL that is not http are usage errors', () => {
    expect(() => toolServerTargetFromOptions({})).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ stdio: 'a', sse: 'http://x/sse' })).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ stdio: 'a', start: 'b' })).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ sse: 'ftp://x/sse' })).toThrow(UsageError);
  });

  test('a command that cannot be started, or a URL nobody answers, makes the target unavailable', async () => {
    await expect(
      runSuite(testSuite, { kind: 'stdio', command: 'wirecheck-no-such-command-xyz' }),
    ).rejects.toThrow(TargetUnavailable);
    const port = await freePort();
    await expect(runSuite(testSuite, { kind: 'sse', url: `http://127.0.0.1:${port}/sse` })).rejects.toThrow(
      TargetUnavailable,
    );
  });
});
