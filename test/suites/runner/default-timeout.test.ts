import { describe, expect, test } from 'vitest';
import { SharedWork } from '../../../src/harness/shared-work.js';
import type { CaseSpec, RunnerCtx, SessionAsker } from '../../../src/suites/runner/context.js';
import { defaultTimeoutSession } from '../../../src/suites/runner/default-timeout.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';

describe('the case of the real default timeout', () => {
  test('runs once with the timeout unset, and scans no /proc while its 20 s pass (its check judges the answer alone)', async () => {
    const specs: CaseSpec[] = [];
    const sessions = new SharedWork();
    const closing = new AbortController().signal;
    const ctx = {
      closing,
      shared: <T>(key: string, asker: SessionAsker | undefined, make: () => Promise<T>) =>
        sessions.get(key, make, asker),
      run: async (spec: CaseSpec) => {
        specs.push(spec);
        return { outputs: [] } as unknown as SessionRun;
      },
    } as unknown as RunnerCtx;
    const first = await defaultTimeoutSession(ctx);
    const again = await defaultTimeoutSession(ctx);
    expect(again).toBe(first);
    expect(specs).toHaveLength(1);
    const [spec] = specs;
    expect(spec?.timeoutS).toBeUndefined();
    expect(spec?.signal).toBe(closing);
    expect(spec?.lines.at(-1)?.text).toContain(first.sleeper.command);
    expect(spec?.watch ?? []).toEqual([]);
  });
});
