import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { type CheckEnv, CheckFailure, CheckSkipped } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { environmentChecks, executionChecks } from '../../../src/suites/runner/checks/execution.js';
import type { Canaries, CaseSpec, RunnerCtx } from '../../../src/suites/runner/context.js';
import { createRunnerSuite } from '../../../src/suites/runner/index.js';
import type { InputLine } from '../../../src/suites/runner/lines.js';
import { runnerCommand, SEED, statusById } from './helpers.js';
import { sessionRunOf } from './timed-run.js';

// The identity session runs `env`: a runner that passes its environment on prints the user's
// (secrets included) there. However malformed the answer, or wherever it lands, no failure,
// message or evidence of the session's checks may quote it.

const SECRET_NAME = 'TEST_RUNNER_SECRET_TOKEN';
const secret = `sk-ant-test-${randomBytes(12).toString('hex')}`;

/**
 * A user's environment holds several credentials. `env` prints them in an order the shells in
 * between choose, and a failure quoted a line's first 400 characters: with several, some fall
 * within them wherever the order puts them.
 */
const SECRETS: Record<string, string> = Object.fromEntries(
  [
    SECRET_NAME,
    'ANTHROPIC_API_KEY',
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'NPM_TOKEN',
    'OPENAI_API_KEY',
  ].map((name) => [name, `${secret}-${name.toLowerCase()}`]),
);

describe('a runner that passes its environment on and answers `env` with no valid tool_result', () => {
  const suite = createRunnerSuite({
    maxCommandRuns: 3,
    maxShrinkRuns: 3,
    // Small, so that the secrets are most of what `env` prints.
    baseEnv: { PATH: '/usr/local/bin:/usr/bin:/bin', ...SECRETS },
  });
  const identityChecks = [...executionChecks, ...environmentChecks].map((c) => c.id);

  for (const runner of ['env-content-object', 'env-is-error-number']) {
    test(`${runner}: warns on no-inherited-variables without quoting the environment`, async () => {
      const result = await runSuite(
        suite,
        { runner: runnerCommand(runner) },
        { seed: SEED, runs: 3, only: identityChecks },
      );
      const check = result.checks.find((c) => c.id === 'runner.environment.no-inherited-variables');
      expect(JSON.stringify(result)).not.toContain(secret);
      expect(check?.status).toBe('warn');
      expect(check?.message).toMatch(/^result line 6 \(env\) is not a tool_result block: /);
      expect(check?.actual).toMatch(/^a line of \d+ characters, not quoted: /);
      // The other checks of the session read their own lines, which are well formed.
      expect(statusById(result)).toMatchObject({
        'runner.environment.home': 'pass',
        'runner.environment.user': 'pass',
        'runner.environment.path': 'pass',
        'runner.execution.workdir': 'pass',
      });
    }, 60_000);
  }
});

const canaries: Canaries = {
  variable: 'WIRECHECK_RUNNER_CANARY',
  value: 'wirecheck-canary-0123456789ab',
  pathEntry: '/nonexistent/wirecheck-path-0123456789ab/bin',
  user: 'wirecheck-canary-user-0123456789ab',
};

/** The output of `env` in a runner that passes its environment on. */
const ENV_OUTPUT = `HOME=/home/user\n${SECRET_NAME}=${secret}\n${canaries.variable}=${canaries.value}\nPATH=/usr/bin\n`;

/** A result line answering `line` with `content`. */
function answer(line: InputLine, content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'tool_result', tool_use_id: line.id, content, is_error: false, ...extra });
}

/** The ordinary answer to each command of the identity session (by its position). */
function ordinary(lines: readonly InputLine[], index: number): string {
  const command = JSON.parse(lines[index]!.text).input.command as string;
  if (command === 'env') return answer(lines[index]!, ENV_OUTPUT);
  const printed = /printf '(wirecheck:\w+=)/.exec(command)?.[1];
  return answer(lines[index]!, printed === undefined ? '1000\n' : `${printed}/x\n`);
}

/** A context whose sessions the runner answers with `outputs(lines)`. */
function ctxAnswering(outputs: (lines: readonly InputLine[]) => string[]): RunnerCtx {
  const run = async (spec: CaseSpec) =>
    sessionRunOf({
      spec,
      workdir: '/nonexistent/workdir',
      outputs: outputs(spec.lines).map((text, i) => ({ text, atMs: i + 1, read: i + 1 })),
    });
  return {
    canaries,
    run,
    shared: (_key, _asker, make) => make(),
  } as Partial<RunnerCtx> as RunnerCtx;
}

const checkEnv: CheckEnv = {
  seed: SEED,
  runs: 1,
  full: false,
  signal: new AbortController().signal,
  idle: (work) => work,
};

/** What a check of the identity session threw, as a report would hold it. */
async function outcomeOf(id: string, ctx: RunnerCtx): Promise<{ kind: string; text: string }> {
  const check = [...executionChecks, ...environmentChecks].find((c) => c.id === id)!;
  try {
    await check.run(ctx, checkEnv);
  } catch (e) {
    if (e instanceof CheckFailure) {
      const { message, expected, actual, evidence, sharedCause } = e;
      return { kind: e.name, text: JSON.stringify({ message, expected, actual, evidence, sharedCause }) };
    }
    if (e instanceof CheckSkipped) return { kind: e.name, text: JSON.stringify({ message: e.message }) };
    throw e;
  }
  return { kind: 'pass', text: '' };
}

describe('failures of the identity session never quote what `env` printed', () => {
  test('an env line that is not JSON', async () => {
    const ctx = ctxAnswering((lines) =>
      lines.map((_, i) =>
        i === 5 ? `env output follows: ${ENV_OUTPUT.replaceAll('\n', ' ')}` : ordinary(lines, i),
      ),
    );
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain('stdout line 6 (env) is not JSON');
    expect(text).not.toContain(secret);
  });

  test("a dropped answer moves env's malformed answer under the PATH line", async () => {
    const ctx = ctxAnswering((lines) =>
      lines.flatMap((l, i) =>
        i === 4 ? [] : i === 5 ? [answer(l, { stdout: ENV_OUTPUT })] : [ordinary(lines, i)],
      ),
    );
    const { kind, text } = await outcomeOf('runner.environment.path', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain('result line 5 (printf $PATH) is not a tool_result block');
    expect(text).not.toContain(secret);
  });

  test('an env answer under an id of its own making', async () => {
    const ctx = ctxAnswering((lines) =>
      lines.map((l, i) =>
        i === 5 ? answer({ ...l, id: `toolu_${secret}` }, ENV_OUTPUT) : ordinary(lines, i),
      ),
    );
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain('answers another tool_use');
    expect(text).not.toContain(secret);
  });

  test("an id of the session's own is still named", async () => {
    const ctx = ctxAnswering((lines) =>
      lines.map((l, i) => (i === 5 ? answer({ ...l, id: lines[7]!.id }, ENV_OUTPUT) : ordinary(lines, i))),
    );
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain("(input line 8's)");
  });

  // Ids all right, the output cut at the wrong place (a persistent shell missing its sentinel):
  // each answer carries the next command's output, alone or after its own.
  test.each([
    ['alone', (_own: string, next: string) => next],
    ['after its own', (own: string, next: string) => `${own}${next}`],
  ])("each answer holding the next command's output (%s)", async (how, content) => {
    const contentOf = (lines: readonly InputLine[], i: number) =>
      (JSON.parse(ordinary(lines, i)) as { content: string }).content;
    const ctx = ctxAnswering((lines) =>
      lines.map((l, i) =>
        i + 1 < lines.length
          ? answer(l, content(contentOf(lines, i), contentOf(lines, i + 1)))
          : ordinary(lines, i),
      ),
    );
    // Alone: the answer does not begin with the tagged line, nothing to judge. After its own:
    // the tagged line is judged, the rest is not read.
    const { kind, text } = await outcomeOf('runner.environment.path', ctx);
    expect(kind).toBe(how === 'alone' ? 'NotExercised' : 'pass');
    expect(text).not.toContain(secret);
  });

  test('an environment printed in another form is not exercised, and not quoted', async () => {
    const declared = ENV_OUTPUT.replace(/^/gm, 'declare -x ');
    const ctx = ctxAnswering((lines) =>
      lines.map((l, i) => (i === 5 ? answer(l, declared) : ordinary(lines, i))),
    );
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('NotExercised');
    expect(text).not.toContain(secret);
  });

  test("a canary line that holds more than the canary's assignment is described, not quoted", async () => {
    const joined = ENV_OUTPUT.replaceAll('\n', '\r');
    const ctx = ctxAnswering((lines) =>
      lines.map((l, i) => (i === 5 ? answer(l, joined) : ordinary(lines, i))),
    );
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain('is visible to the command');
    expect(text).not.toContain(secret);
  });

  test("the canary's own line is still quoted", async () => {
    const ctx = ctxAnswering((lines) => lines.map((_, i) => ordinary(lines, i)));
    const { kind, text } = await outcomeOf('runner.environment.no-inherited-variables', ctx);
    expect(kind).toBe('CheckFailure');
    expect(text).toContain(`${canaries.variable}=${canaries.value}`);
    expect(text).not.toContain(secret);
  });
});
