import { type Check, expectThat } from '../../../harness/check.js';
import { assembleOutput } from '../../../protocol/bash/index.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import {
  abbreviate,
  expectContent,
  expectIsError,
  expectMatches,
  numberPattern,
  resultAt,
} from '../expect.js';
import { toolUse } from '../lines.js';
import { expectAssembledOutput } from '../output-rules.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const ASSEMBLY = 'Runner contract for the shell tool, item 4 (Output assembly)';
const BLANK = 'Runner contract for the shell tool, item 6 (Empty output)';
const IS_ERROR = 'Runner contract for the shell tool, item 7 (is_error)';
const FAILS = 'Errors (shell command fails: is_error true, captured output, stderr included, as content)';
const ASSEMBLY_RULE =
  'The spec, for every runner: the result text is stdout; when stderr is non-empty it is appended, preceded by the separator line `--- STDERR ---` with a line break before and after, but only if stdout was non-empty. A stdout that ends with a line break may lend it as the break before the separator line (`out\\n--- STDERR ---\\nerr`) or get one more (`out\\n\\n--- STDERR ---`): both have the separator on a line of its own.';
/**
 * "states ... that no output was produced", in the words a runner may choose. The gap after "no"
 * is bounded (a sentence's worth): an unbounded one backtracks quadratically on "no " repeated.
 */
export const NO_OUTPUT =
  /\bno\b[^.\n]{0,200}\b(output|std(out|err))\b|\bany (output|std(out|err))\b|\b(empty|nothing|blank|none|silent(ly)?)\b|\(none\)|without (any )?output|\b(zero|0) bytes\b/i;

/**
 * Small commands whose results the output checks compare exactly, in one session. The bytes
 * that are not UTF-8 come last: a runner that dies on them (a strict decoder) has answered
 * every other line, so the checks of those lines judge them and not that death.
 */
const COMMANDS = {
  both: 'echo out; echo err >&2',
  stderrOnly: 'echo err >&2',
  stdoutOnly: 'echo out',
  blankSuccess: 'true',
  // The code is not in the command's text: a runner quoting `exit 3` would seem to state it.
  // Cutting the quote out instead would cut a runner's own "exit 3, output empty" too.
  blankFailure: 'exit $((1+2))',
  whitespace: "printf '  \\n'",
  failBoth: 'echo out; echo err >&2; exit 3',
  failStderr: 'echo err >&2; exit 4',
  invalidUtf8: "printf 'a\\377b\\376c\\n'",
} as const;
type CommandKey = keyof typeof COMMANDS;
const KEYS = Object.keys(COMMANDS) as CommandKey[];

function outputSession(ctx: RunnerCtx, asker: SessionAsker): Promise<SessionRun> {
  return ctx.shared('output', asker, () =>
    ctx.run({
      lines: KEYS.map((k) => toolUse(COMMANDS[k])),
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(KEYS.length),
      signal: asker.signal,
    }),
  );
}

async function resultOf(ctx: RunnerCtx, asker: SessionAsker, key: CommandKey) {
  return resultAt(await outputSession(ctx, asker), KEYS.indexOf(key), COMMANDS[key]);
}

export const outputChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.output.stdout-and-stderr',
    clause: ASSEMBLY,
    description:
      'stdout, then the separator line --- STDERR --- with a line break before and after, then stderr.',
    level: 'must',
    basis: 'spec',
    rule: ASSEMBLY_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await resultOf(ctx, env, 'both');
      expectAssembledOutput(result.content, 'out\n', 'err\n', COMMANDS.both);
      expectIsError(result, false, COMMANDS.both);
    },
  },
  {
    id: 'runner.output.stderr-only',
    clause: `${ASSEMBLY} (the separator only if stdout was non-empty)`,
    description: 'Output on stderr only is the result text as it is, without the separator.',
    level: 'must',
    basis: 'spec',
    rule: ASSEMBLY_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectContent(await resultOf(ctx, env, 'stderrOnly'), assembleOutput('', 'err\n'), COMMANDS.stderrOnly);
    },
  },
  {
    id: 'runner.output.stdout-only',
    clause: ASSEMBLY,
    description: 'Output on stdout only is the result text as it is.',
    level: 'must',
    basis: 'spec',
    rule: ASSEMBLY_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await resultOf(ctx, env, 'stdoutOnly');
      expectContent(result, assembleOutput('out\n', ''), COMMANDS.stdoutOnly);
      expectIsError(result, false, COMMANDS.stdoutOnly);
    },
  },
  {
    id: 'runner.output.blank',
    clause: BLANK,
    description:
      'A command that prints nothing gets a text stating its exit code and that no output was produced.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: when the output is blank, the result text states the exit code and that no output was produced (and is_error follows the exit code).',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const [key, code] of [
        ['blankSuccess', 0],
        ['blankFailure', 3],
      ] as const) {
        const result = await resultOf(ctx, env, key);
        expectMatches(result, NO_OUTPUT, COMMANDS[key], 'state that no output was produced');
        expectMatches(result, numberPattern(code), COMMANDS[key], `state the exit code ${code}`);
        expectIsError(result, code !== 0, COMMANDS[key]);
      }
    },
  },
  {
    id: 'runner.output.whitespace-only',
    clause: `${BLANK} (whether whitespace-only output is blank is not stated)`,
    description:
      'Output of only spaces and a line break counts as blank: the no-output text with the exit code.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec gives blank output its own text but does not define blank; read as "nothing but whitespace" (as the reference runner does), output of only spaces and a line break gets the no-output text with the exit code.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await resultOf(ctx, env, 'whitespace');
      expectMatches(result, NO_OUTPUT, COMMANDS.whitespace, 'state that no output was produced');
      expectMatches(result, numberPattern(0), COMMANDS.whitespace, 'state the exit code 0');
    },
  },
  {
    id: 'runner.output.invalid-utf8',
    clause: `${ASSEMBLY} (how bytes that are not UTF-8 reach the text is not stated)`,
    description:
      'Bytes that are not UTF-8 do not break the result: the text around them is kept and is_error stays false.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not say how output bytes that are not UTF-8 become the result text (a JSON string); a runner should keep the valid text around them (replacing the invalid bytes) rather than lose the output or fail the command.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await resultOf(ctx, env, 'invalidUtf8');
      expectIsError(result, false, COMMANDS.invalidUtf8);
      const c = result.content;
      expectThat(
        // The trailing line break is the other runner.output checks' to judge.
        c.startsWith('a') && (c.endsWith('c\n') || c.endsWith('c')) && c.includes('b'),
        `${COMMANDS.invalidUtf8}: the valid bytes around the invalid ones were not kept`,
        '"a", a replacement for \\377, "b", a replacement for \\376, "c\\n" (or "c")',
        abbreviate(c),
      );
    },
  },
  {
    id: 'runner.exit-status.stderr-not-error',
    clause: `${IS_ERROR}: "true exactly when the exit code is not 0"`,
    description: 'Output on stderr with exit code 0 is not an error.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: is_error is true exactly when the exit code is not 0 (or on timeout, refusal or spawn failure), so a command that writes to stderr and exits 0 is not an error.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      expectIsError(await resultOf(ctx, env, 'stderrOnly'), false, `${COMMANDS.stderrOnly} (exit 0)`);
      expectIsError(await resultOf(ctx, env, 'both'), false, `${COMMANDS.both} (exit 0)`);
    },
  },
  {
    id: 'runner.output.failure-with-stderr',
    clause: `${FAILS}; ${ASSEMBLY}; ${IS_ERROR}`,
    description:
      'A failing command that writes to stderr: is_error true, and the content holds its stderr (after stdout and the separator when stdout is non-empty).',
    level: 'must',
    basis: 'spec',
    rule: `The spec, for every runner: a command that fails (exit code not 0) gets is_error true and its captured output, stderr included, as content, assembled as for any command. ${ASSEMBLY_RULE}`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const [key, stdout, stderr] of [
        ['failBoth', 'out\n', 'err\n'],
        ['failStderr', '', 'err\n'],
      ] as const) {
        const result = await resultOf(ctx, env, key);
        expectIsError(result, true, COMMANDS[key]);
        expectAssembledOutput(result.content, stdout, stderr, COMMANDS[key]);
      }
    },
  },
];
