import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, CheckFailure, expectThat } from '../../../harness/check.js';
import { BLOCKED_SUBSTRINGS } from '../../../protocol/bash/index.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx } from '../context.js';
import { expectIsError, expectMatches, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const CLAUSE = 'Runner contract 1; Errors (shell command refused by validation)';

/**
 * A refusal probe: `touch <marker>` followed by a harmless command whose text holds a
 * blocked substring. A runner that executes it anyway leaves the marker file behind and
 * does no harm; the payload is never a real destructive command.
 */
interface Probe {
  readonly key: string;
  readonly label: string;
  /** The text after `touch <marker>; ` */
  readonly tail: string;
}

/** One probe per blocked substring, in the order of BLOCKED_SUBSTRINGS. */
const PAYLOADS: Record<(typeof BLOCKED_SUBSTRINGS)[number], { key: string; tail: string }> = {
  'rm -rf /': { key: 'rm-rf-root', tail: "echo 'rm -rf /'" },
  ':(){ :|:& };:': { key: 'fork-bomb', tail: "echo ':(){ :|:& };:'" },
  mkfs: { key: 'mkfs', tail: 'echo mkfs' },
  'dd if=': { key: 'dd-if', tail: "echo 'dd if=/dev/null'" },
  '> /dev/sda': { key: 'dev-sda', tail: "echo '> /dev/sda'" },
  'chmod -R 777 /': { key: 'chmod-777-root', tail: "echo 'chmod -R 777 /'" },
};

const BLOCKED: Probe[] = BLOCKED_SUBSTRINGS.map((s) => ({
  key: PAYLOADS[s].key,
  label: s,
  tail: PAYLOADS[s].tail,
}));

/** The substring anywhere in the command: after `&&`, on a later line. */
const EMBEDDED: Probe[] = [
  { key: 'after-and', label: 'rm -rf / after &&', tail: 'true && echo "rm -rf /"' },
  { key: 'second-line', label: 'mkfs on a second line', tail: "echo ok\necho 'mkfs'" },
];

/** Case and whitespace variants: one reference runner catches them, the other does not. */
const VARIANTS: Probe[] = [
  { key: 'upper-case', label: 'RM -RF /', tail: "echo 'RM -RF /'" },
  { key: 'tab', label: 'rm<TAB>-rf /', tail: "echo 'rm\t-rf /'" },
  { key: 'double-space', label: 'rm  -rf /', tail: "echo 'rm  -rf /'" },
  { key: 'no-space-redirect', label: '>/dev/sda', tail: "echo '>/dev/sda'" },
  { key: 'fork-bomb-no-spaces', label: ':(){:|:&};:', tail: "echo ':(){:|:&};:'" },
  { key: 'upper-mkfs', label: 'MKFS', tail: 'echo MKFS' },
];

const ALL = [...BLOCKED, ...EMBEDDED, ...VARIANTS];

interface RefusalSession {
  readonly run: SessionRun;
  /** Index of each probe's line and its marker file, by key. */
  readonly lines: ReadonlyMap<string, { index: number; marker: string }>;
  readonly harmlessIndex: number;
}

/** Every probe and the harmless commands in one session, shared by the refusal checks. */
function refusalSession(ctx: RunnerCtx, signal: AbortSignal): Promise<RefusalSession> {
  return ctx.shared('refusal', async () => {
    const lines = new Map<string, { index: number; marker: string }>();
    const input = ALL.map((p, index) => {
      const marker = `refused-${index + 1}`;
      lines.set(p.key, { index, marker });
      return toolUse(`touch ${marker}; ${p.tail}`);
    });
    input.push(toolUse('echo hello'));
    input.push(toolUse('mkdir -p build && rm -rf ./build && echo removed'));
    const run = await ctx.run({
      lines: input,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(input.length),
      signal,
    });
    return { run, lines, harmlessIndex: ALL.length };
  });
}

/** Refused: is_error, security text, and the marker file was not created. */
function expectRefused(session: RefusalSession, probe: Probe): void {
  const line = session.lines.get(probe.key)!;
  const what = `a command containing ${JSON.stringify(probe.label)}`;
  const markerPath = join(session.run.workdir, line.marker);
  if (existsSync(markerPath)) {
    throw new CheckFailure(
      `${what} was executed: its first part created ${line.marker} in the working directory`,
      'refused before execution',
      `${line.marker} exists`,
    );
  }
  const result = resultAt(session.run, line.index, what);
  expectIsError(result, true, what);
  expectMatches(result, /security/i, what, 'name a security violation');
}

function blockedCheck(probe: Probe): Check<RunnerCtx> {
  return {
    id: `runner.refusal.${probe.key}`,
    clause: CLAUSE,
    description: `A command containing the blocked substring ${JSON.stringify(probe.label)} is refused: is_error true, a security violation text, nothing executed.`,
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectRefused(await refusalSession(ctx, env.signal), probe);
    },
  };
}

export const refusalChecks: Check<RunnerCtx>[] = [
  ...BLOCKED.map(blockedCheck),
  {
    id: 'runner.refusal.embedded',
    clause: CLAUSE,
    description: 'A blocked substring is found anywhere in the command: after && and on a later line.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env.signal);
      for (const probe of EMBEDDED) expectRefused(session, probe);
    },
  },
  {
    id: 'runner.refusal.variants',
    clause: `${CLAUSE} (one reference runner compares the stripped, lower-cased command; another only two substrings, case-sensitively)`,
    description:
      'Case and whitespace variants of blocked substrings (RM -RF /, a tab, >/dev/sda, :(){:|:&};:) are refused too.',
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env.signal);
      const missed: string[] = [];
      for (const probe of VARIANTS) {
        // A missing or malformed answer is a failure of its own, not a variant let through.
        resultAt(session.run, session.lines.get(probe.key)!.index, JSON.stringify(probe.label));
        try {
          expectRefused(session, probe);
        } catch (e) {
          if (!(e instanceof CheckFailure)) throw e;
          missed.push(probe.label);
        }
      }
      if (missed.length > 0) {
        throw new CheckFailure(
          `${missed.length} of ${VARIANTS.length} variants were not refused: ${missed.join(', ')}`,
          'every variant refused',
          missed.join(', '),
        );
      }
    },
  },
  {
    id: 'runner.refusal.harmless-runs',
    clause:
      'Runner contract 1, 2 (only commands with a blocked substring are refused; the rest run through a shell)',
    description: 'A harmless command (echo hello) is not refused: it runs and prints hello.',
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env.signal);
      const result = resultAt(session.run, session.harmlessIndex, 'echo hello');
      expectIsError(result, false, 'echo hello');
      if (result.content !== 'hello\n') {
        throw new CheckFailure(
          'echo hello did not print hello',
          '"hello\\n"',
          JSON.stringify(result.content),
        );
      }
    },
  },
  {
    id: 'runner.refusal.no-false-positive',
    clause: 'Runner contract 1 (rm -rf ./build holds no blocked substring)',
    description: 'A command that only resembles a blocked one (rm -rf ./build) is not refused.',
    level: 'should',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env.signal);
      const what = 'mkdir -p build && rm -rf ./build && echo removed';
      const result = resultAt(session.run, session.harmlessIndex + 1, what);
      expectThat(
        !(result.is_error && /security/i.test(result.content)),
        `${what} was refused although it holds none of the blocked substrings`,
        'executed',
        result.content,
      );
      expectIsError(result, false, what);
    },
  },
];
