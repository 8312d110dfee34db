import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, CheckFailure, expectThat } from '../../../harness/check.js';
import { BLOCKED_SUBSTRINGS } from '../../../protocol/bash/index.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import { probeMarker } from '../cwd-markers.js';
import { abbreviate, expectCommandOutput, expectIsError, resultAt } from '../expect.js';
import { printing, toolUse } from '../lines.js';
import { expectOwnWordsMatch } from '../quoted-command.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const ITEM_1 = 'Runner contract for the shell tool, item 1 (Validation)';
const ERRORS = 'Errors (shell command refused by validation)';
const CLAUSE = `${ITEM_1}; ${ERRORS}`;
/**
 * "text naming a security violation", in the words a runner may choose: the violation, or the
 * command blocked, refused or not allowed as dangerous (a runner's own words for its blocklist).
 * Read with the probe's command cut out: a runner that fails a command for another reason may
 * quote it, and the quote is not its words.
 */
export const SECURITY_VIOLATION =
  /secur|violat|block(ed|list)?\b|forbid|prohibit|dangerous|destructive|unsafe|not (allowed|permitted)|disallow|refus|reject/i;

/** What a refusal is, for every runner. */
const REFUSED =
  'refused: a tool_result with is_error true and a text naming a security violation, and nothing of the command executed';

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

/** One of the first two substrings anywhere in the command: after `&&`, on a later line. */
const EMBEDDED: Probe[] = [
  { key: 'after-and', label: 'rm -rf / after &&', tail: 'true && echo "rm -rf /"' },
  { key: 'second-line', label: 'the fork bomb on a second line', tail: "echo ok\necho ':(){ :|:& };:'" },
];

/** One of the other four anywhere in the command. */
const EMBEDDED_OTHER: Probe[] = [
  { key: 'mkfs-second-line', label: 'mkfs on a second line', tail: "echo ok\necho 'mkfs'" },
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

const ALL = [...BLOCKED, ...EMBEDDED, ...EMBEDDED_OTHER, ...VARIANTS];

/** The substrings both reference runners refuse: the first two, as written. */
const EVERY_RUNNER = new Set<string>(BLOCKED_SUBSTRINGS.slice(0, 2));

interface ProbeLine {
  readonly index: number;
  readonly marker: string;
  readonly command: string;
}

interface RefusalSession {
  readonly run: SessionRun;
  /** Index of each probe's line, its marker file and its command, by key. */
  readonly lines: ReadonlyMap<string, ProbeLine>;
  readonly harmlessIndex: number;
}

/**
 * Resembles a blocked command and holds none. It removes only the directory it made, named by
 * its shell's pid: a runner that ignores WIRECHECK_WORKDIR runs it in the user's directory, maybe
 * beside another run (mkdir fails on a name that exists, so nothing of theirs is removed).
 */
const LOOKALIKE = 'mkdir wirecheck-scratch-$$ && rm -rf ./wirecheck-scratch-$$ && echo removed';

/** A harmless command whose output (`harmless-ok`) is not in its text: see `printing`. */
const HARMLESS = printing('harmless', 'ok');

/** Every probe and the harmless commands in one session, shared by the refusal checks. */
function refusalSession(ctx: RunnerCtx, asker: SessionAsker): Promise<RefusalSession> {
  return ctx.shared('refusal', asker, async () => {
    const lines = new Map<string, ProbeLine>();
    const input = ALL.map((p, index) => {
      const marker = probeMarker(index + 1);
      const command = `touch ${marker}; ${p.tail}`;
      lines.set(p.key, { index, marker, command });
      return toolUse(command);
    });
    input.push(toolUse(HARMLESS.command));
    input.push(toolUse(LOOKALIKE));
    const run = await ctx.run({
      lines: input,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(input.length),
      signal: asker.signal,
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
  expectOwnWordsMatch(result, SECURITY_VIOLATION, line.command, what, 'name a security violation');
}

function blockedCheck(probe: Probe): Check<RunnerCtx> {
  const always = EVERY_RUNNER.has(probe.label);
  const description = `A command containing the blocked substring ${JSON.stringify(probe.label)} is refused: is_error true, a security violation text, nothing executed.`;
  if (always) {
    return {
      id: `runner.refusal.${probe.key}`,
      clause: CLAUSE,
      description,
      level: 'must',
      basis: 'spec',
      rule: `The spec lists six blocked substrings; both of its reference runners refuse the first two (${[...EVERY_RUNNER].map((b) => JSON.stringify(b)).join(' and ')}) as written. So every runner: a command containing ${JSON.stringify(probe.label)} is ${REFUSED}.`,
      timeoutMs: CASE_BUDGET_MS,
      async run(ctx, env) {
        expectRefused(await refusalSession(ctx, env), probe);
      },
    };
  }
  return {
    id: `runner.refusal.${probe.key}`,
    clause: `${CLAUSE} ("one reference runner ... checks all six; another checks only the first two")`,
    description,
    level: 'should',
    basis: 'spec-reference',
    rule: `One reference runner checks all six blocked substrings; the other only the first two. So ${JSON.stringify(probe.label)}, the ${ordinal(BLOCKED_SUBSTRINGS.indexOf(probe.label as (typeof BLOCKED_SUBSTRINGS)[number]))} substring, is refused by one reference runner: a command containing it is ${REFUSED}.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectRefused(await refusalSession(ctx, env), probe);
    },
  };
}

function ordinal(index: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'][index] ?? `#${index + 1}`;
}

/** Every probe refused; the ones let through listed together (a missing answer fails on its own). */
function expectAllRefused(session: RefusalSession, probes: readonly Probe[]): void {
  const missed: string[] = [];
  for (const probe of probes) {
    resultAt(session.run, session.lines.get(probe.key)!.index, JSON.stringify(probe.label));
    try {
      expectRefused(session, probe);
    } catch (e) {
      if (!(e instanceof CheckFailure)) throw e;
      missed.push(`${probe.label}: ${e.message}`);
    }
  }
  if (missed.length > 0) {
    throw new CheckFailure(
      `${missed.length} of ${probes.length} commands were not refused: ${missed.join('; ')}`,
      'every one refused',
      missed.join('; '),
    );
  }
}

export const refusalChecks: Check<RunnerCtx>[] = [
  ...BLOCKED.map(blockedCheck),
  {
    id: 'runner.refusal.embedded',
    clause: CLAUSE,
    description:
      'One of the first two blocked substrings is found anywhere in the command: after && and on a later line.',
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every runner: a command is refused when it *contains* a blocked substring, wherever it stands; both reference runners refuse the first two. A command holding one after && or on a later line is ${REFUSED}.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectAllRefused(await refusalSession(ctx, env), EMBEDDED);
    },
  },
  {
    id: 'runner.refusal.embedded-other',
    clause: `${CLAUSE} ("one reference runner ... checks all six")`,
    description: 'One of the other four blocked substrings (mkfs) is found on a later line of the command.',
    level: 'should',
    basis: 'spec-reference',
    rule: `One reference runner checks all six blocked substrings anywhere in the command (the other only the first two): a command with mkfs on its second line is ${REFUSED}.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectAllRefused(await refusalSession(ctx, env), EMBEDDED_OTHER);
    },
  },
  {
    id: 'runner.refusal.variants',
    clause: `${CLAUSE} ("one reference runner compares against the stripped, lower-cased command"; another "case-sensitively")`,
    description:
      'Case and whitespace variants of blocked substrings (RM -RF /, a tab, >/dev/sda, :(){:|:&};:) are refused too.',
    level: 'should',
    basis: 'spec-reference',
    rule: `One reference runner compares the blocked substrings against the stripped, lower-cased command; the other compares case-sensitively. Following the first, a case or whitespace variant of a blocked substring is ${REFUSED}.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectAllRefused(await refusalSession(ctx, env), VARIANTS);
    },
  },
  {
    id: 'runner.refusal.harmless-runs',
    clause: `${ITEM_1}; Runner contract for the shell tool, item 2 (Execution: the command runs through a shell)`,
    description: `A harmless command (${HARMLESS.command}) is not refused: it runs and prints ${HARMLESS.output.trim()}.`,
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every runner: a command runs through a shell with its output captured; refusal is for commands holding a blocked substring, and \`${HARMLESS.command}\` holds none. Its output is found in the result, not in a copy of the command: a runner that shows the command instead of running it did not run it.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env);
      const result = resultAt(session.run, session.harmlessIndex, HARMLESS.command);
      expectIsError(result, false, HARMLESS.command);
      expectCommandOutput(result, HARMLESS.output, HARMLESS.command);
    },
  },
  {
    id: 'runner.refusal.no-false-positive',
    clause: `${ITEM_1} (rm -rf ./wirecheck-scratch-$$ holds no blocked substring)`,
    description:
      'A command that only resembles a blocked one (rm -rf ./wirecheck-scratch-$$) is not refused.',
    level: 'should',
    basis: 'spec-reference',
    rule: 'The spec refuses commands that contain a blocked substring; neither reference runner refuses `rm -rf ./wirecheck-scratch-$$`, which contains none (not even with whitespace stripped). A runner that refuses it blocks ordinary work.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const session = await refusalSession(ctx, env);
      const what = LOOKALIKE;
      const result = resultAt(session.run, session.harmlessIndex + 1, what);
      expectThat(
        !(result.is_error && /security/i.test(result.content)),
        `${what} was refused although it holds none of the blocked substrings`,
        'executed',
        abbreviate(result.content),
      );
      expectIsError(result, false, what);
    },
  },
];
