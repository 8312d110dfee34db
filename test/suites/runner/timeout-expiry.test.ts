import { describe, expect, test } from 'vitest';
import { timeoutChecks } from '../../../src/suites/runner/checks/timeout.js';
import type { CaseSpec, RunnerCtx } from '../../../src/suites/runner/context.js';
import type { SessionRun } from '../../../src/suites/runner/session.js';
import { checkEnv } from '../../check-env.js';

describe('the case of runner.timeout.expiry', () => {
  test('runs `sleep 30` under a 2 s timeout and scans no /proc meanwhile (its check judges the answer alone)', async () => {
    const check = timeoutChecks.find((c) => c.id === 'runner.timeout.expiry');
    const specs: CaseSpec[] = [];
    const ctx = {
      run: async (spec: CaseSpec) => {
        specs.push(spec);
        return { outputs: [] } as unknown as SessionRun;
      },
    } as unknown as RunnerCtx;
    const env = checkEnv();
    // The fake session answered nothing, so the check fails; what it asked for is the point here.
    await expect(check?.run(ctx, env)).rejects.toThrow();
    expect(specs).toHaveLength(1);
    const [spec] = specs;
    expect(spec?.timeoutS).toBe(2);
    expect(spec?.lines.at(-1)?.text).toMatch(/"command":"sleep 30\.000\d{12}"/);
    expect(spec?.watch ?? []).toEqual([]);
  });
});
