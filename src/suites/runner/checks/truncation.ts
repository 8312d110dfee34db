import fc from 'fast-check';
import { type Check, CheckFailure, expectThat, NotExercised } from '../../../harness/check.js';
import { checkProperty } from '../../../harness/property.js';
import { OUTPUT_LIMIT_BYTES } from '../../../protocol/bash/index.js';
import { arbCommandOutput } from '../arbitraries.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import { abbreviate, expectIsError, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { expectAssembledOutput, hasNote, type NoteRule } from '../output-rules.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, PROPERTY_BUDGET_MS, quickBudgetMs } from './common.js';

const CLAUSE =
  'Runner contract for the shell tool, item 5 (Truncation); Limits (captured output 65536 bytes, runner, per result)';
const CUT_RULE =
  "The spec, for every runner: when the output (stdout, the separator and stderr, as assembled) exceeds 65536 bytes it is cut to that length and a note that the 64 KB limit was exceeded is appended; output within the limit comes back whole. The note's words are the runner's: any note after the cut will do (whether it names the limit is runner.truncation.note-names-limit).";
const LIMIT = OUTPUT_LIMIT_BYTES;
/** What may follow the valid head of the invalid-UTF-8 case: its bad bytes as up to 4 bytes each, and a note. */
const TAIL_ROOM_BYTES = 1000 + 4 * 10;

/**
 * Outputs of known shape, printed with `cat` from files in the working directory. The cuts
 * inside a character come last: a runner that dies there (a strict decoder after a byte cut)
 * has answered the others, so large-output judges the megabyte and not that death.
 */
const CASES = {
  atLimit: { stdout: `x${'a'.repeat(LIMIT - 1)}`, stderr: '' },
  overLimit: { stdout: `x${'a'.repeat(LIMIT)}`, stderr: '' },
  /** A megabyte: the runner must keep reading (and dropping) and still answer. */
  megabyte: { stdout: 'z'.repeat(1 << 20), stderr: '' },
  /** 2-byte characters: the limit falls inside one; cut by characters, nothing would be cut. */
  twoByteStraddle: { stdout: `x${'é'.repeat(40_000)}`, stderr: '' },
  /** A 4-byte character straddles the limit; cut by UTF-16 units, one emoji too many is kept. */
  fourByteStraddle: { stdout: `${'a'.repeat(LIMIT - 2)}${'😀'.repeat(4)}`, stderr: '' },
  /** The limit falls inside stderr, after stdout and the separator. */
  inStderr: { stdout: `x${'a'.repeat(99)}`, stderr: `y${'€'.repeat(22_000)}` },
} as const;
type CaseKey = keyof typeof CASES;
const KEYS = Object.keys(CASES) as CaseKey[];

/**
 * Generated outputs one runner session prints, one command each: a runner start costs far
 * more than a command, and a runner that answers each line on its own is judged the same
 * way on the first line as on the fifth (and one that does not is caught either way).
 */
const OUTPUTS_PER_RUNNER = 5;

/** The property runs (runner sessions) for `outputs` generated outputs, and outputs per run. */
export function outputBatches(outputs: number): { runs: number; perRun: number } {
  const perRun = Math.max(1, Math.min(OUTPUTS_PER_RUNNER, outputs));
  return { runs: Math.ceil(outputs / perRun), perRun };
}

type CommandOutput = { stdout: string; stderr: string };

/**
 * The outputs of a case. A counterexample saved before the case became a list of outputs
 * (one `{stdout, stderr}`) still replays, as a list of one.
 */
function asOutputList(value: readonly CommandOutput[] | CommandOutput): readonly CommandOutput[] {
  return Array.isArray(value) ? value : [value as CommandOutput];
}

/** `k.out` and `k.err` as files, and the command that prints them. */
function filesOf(key: string, output: CommandOutput) {
  return {
    files: { [`${key}.out`]: output.stdout, [`${key}.err`]: output.stderr },
    command: `cat ${key}.out; cat ${key}.err >&2`,
  };
}

function edgeSession(ctx: RunnerCtx, asker: SessionAsker): Promise<SessionRun> {
  return ctx.shared('truncation', asker, () => {
    const parts = KEYS.map((k) => filesOf(k, CASES[k]));
    return ctx.run({
      lines: parts.map((p) => toolUse(p.command)),
      files: Object.assign({}, ...parts.map((p) => p.files)),
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(KEYS.length, 5000),
      signal: asker.signal,
    });
  });
}

async function expectEdge(
  ctx: RunnerCtx,
  asker: SessionAsker,
  key: CaseKey,
  splitCharacter: 'tolerate' | 'forbid' = 'tolerate',
  note: NoteRule = 'says-cut',
): Promise<void> {
  const run = await edgeSession(ctx, asker);
  const { stdout, stderr } = CASES[key];
  const what = `output of ${Buffer.byteLength(stdout)} + ${Buffer.byteLength(stderr)} bytes (${key})`;
  const result = resultAt(run, KEYS.indexOf(key), what);
  expectIsError(result, false, what);
  expectAssembledOutput(result.content, stdout, stderr, what, splitCharacter, note);
}

/** Cases whose limit falls inside a multi-byte character, or inside stderr. */
const STRADDLING = ['twoByteStraddle', 'fourByteStraddle', 'inStderr'] as const;

export const truncationChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.truncation.at-limit',
    clause: CLAUSE,
    description: `Exactly ${LIMIT} bytes of output come back whole, without a note.`,
    level: 'must',
    basis: 'spec',
    rule: CUT_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectEdge(ctx, env, 'atLimit');
    },
  },
  {
    id: 'runner.truncation.over-limit',
    clause: CLAUSE,
    description: `${LIMIT + 1} bytes of output are cut to ${LIMIT} bytes and a note that the output was cut is appended.`,
    level: 'must',
    basis: 'spec',
    rule: CUT_RULE,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectEdge(ctx, env, 'overLimit');
    },
  },
  {
    id: 'runner.truncation.note-names-limit',
    clause: `${CLAUSE} ("a note that the 64 KB limit was exceeded")`,
    description: `The note appended to output cut at ${LIMIT} bytes names the limit (64 KB, 64 KiB, 65536 bytes...).`,
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec appends "a note that the 64 KB limit was exceeded" to output cut at 65536 bytes; its words are the runner\'s, and a note that only says the output was cut passes the musts. The note should name the limit, so that a model reading the result knows how much it got and that more was printed.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      try {
        await expectEdge(ctx, env, 'overLimit');
      } catch (e) {
        // The cut itself is runner.truncation.over-limit's to fail: this should judges the note alone.
        if (!(e instanceof CheckFailure) || e.sharedCause !== undefined) throw e;
        throw new NotExercised(
          `the output was not cut as runner.truncation.over-limit asks, so its note was not judged alone (${e.message})`,
        );
      }
      await expectEdge(ctx, env, 'overLimit', 'tolerate', 'names-limit');
    },
  },
  {
    id: 'runner.truncation.by-bytes',
    clause: `${CLAUSE} (the limit is in bytes, per result)`,
    description:
      'Output of 2- and 4-byte characters is cut at 65536 bytes, not characters; also when the limit falls in stderr after the separator.',
    level: 'must',
    basis: 'spec',
    rule: `${CUT_RULE} The limit counts bytes, so text of multi-byte characters keeps at most 65536 bytes of output, not 65536 characters. (How a character the cut falls inside is handled is runner.truncation.char-boundary.)`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const key of STRADDLING) await expectEdge(ctx, env, key, 'tolerate');
    },
  },
  {
    id: 'runner.truncation.char-boundary',
    clause: `${CLAUSE} (what happens to a character the cut falls inside is not stated)`,
    description:
      'When the limit falls inside a character, the cut backs off to the character boundary: no U+FFFD replaces the partial bytes.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec cuts output at 65536 bytes but does not say what happens to a multi-byte character the cut falls inside. A runner should cut before that character, so the text holds no replacement character (U+FFFD) that the command never printed.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      for (const key of STRADDLING) await expectEdge(ctx, env, key, 'forbid');
    },
  },
  {
    id: 'runner.truncation.large-output',
    clause: CLAUSE,
    description: 'A megabyte of output is answered with the first 65536 bytes and the note.',
    level: 'must',
    basis: 'spec',
    rule: `${CUT_RULE} However much a command prints, the runner keeps reading and answers with the first 65536 bytes.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      await expectEdge(ctx, env, 'megabyte');
    },
  },
  {
    id: 'runner.truncation.generated',
    clause: `${CLAUSE}; Runner contract for the shell tool, item 4 (Output assembly)`,
    description: `Generated stdout and stderr of many sizes around the limit, with 1- to 4-byte characters, up to ${OUTPUTS_PER_RUNNER} commands per runner: exact below the limit, the first 65536 bytes and the note above it.`,
    level: 'must',
    basis: 'spec',
    rule: `${CUT_RULE} Output assembly (stdout, then the separator and stderr when both are non-empty) comes first, then the cut.`,
    timeoutMs: PROPERTY_BUDGET_MS,
    async run(ctx, env) {
      const { runs, perRun } = outputBatches(ctx.commandRuns(env));
      await checkProperty(
        env,
        fc.array(arbCommandOutput, { minLength: perRun, maxLength: perRun }),
        async (generated) => {
          const outputs = asOutputList(generated);
          const parts = outputs.map((output, i) => filesOf(`gen${i + 1}`, output));
          const run = await ctx.run({
            lines: parts.map((p) => toolUse(p.command)),
            files: Object.assign({}, ...parts.map((p) => p.files)),
            timeoutS: ORDINARY_TIMEOUT_S,
            budgetMs: quickBudgetMs(outputs.length),
            signal: env.signal,
          });
          for (const [i, output] of outputs.entries()) {
            const what = `command ${i + 1} of ${outputs.length}, output of ${Buffer.byteLength(output.stdout)} + ${Buffer.byteLength(output.stderr)} bytes`;
            const result = resultAt(run, i, what);
            expectIsError(result, false, what);
            expectAssembledOutput(result.content, output.stdout, output.stderr, what, 'tolerate');
          }
        },
        { runs, maxShrinkRuns: ctx.shrinkRuns },
      );
    },
  },
  {
    id: 'runner.truncation.invalid-utf8',
    clause: `${CLAUSE} (how bytes that are not UTF-8 are counted is not stated)`,
    description:
      'Output over the limit with bytes that are not UTF-8 near the cut is still cut, with the note.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec does not say how output bytes that are not UTF-8 count toward the 65536-byte limit; whatever the reading, output over the limit with such bytes near the cut should still be cut near the limit, with the note.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const head = 'a'.repeat(LIMIT - 6);
      // Past the bad bytes, more than the tail may hold: output kept whole (a cut that bails out
      // on them, the note appended all the same) cannot pass for one cut near the limit.
      const rest = 'b'.repeat(4 * TAIL_ROOM_BYTES);
      const bytes = Buffer.concat([Buffer.from(head), Buffer.alloc(10, 0xff), Buffer.from(rest)]);
      const run = await ctx.run({
        lines: [toolUse('cat bytes.out')],
        files: { 'bytes.out': bytes },
        timeoutS: ORDINARY_TIMEOUT_S,
        budgetMs: quickBudgetMs(1),
        signal: env.signal,
      });
      const what = `${bytes.length} bytes of output with 10 bytes 0xff after byte ${head.length}`;
      const result = resultAt(run, 0, what);
      expectIsError(result, false, what);
      expectThat(
        result.content.startsWith(head),
        `${what}: the valid output before the invalid bytes was not kept`,
        `${head.length} x "a" first`,
        abbreviate(result.content.slice(0, 80)),
      );
      const tail = result.content.slice(head.length);
      expectThat(
        hasNote(tail) && Buffer.byteLength(tail) < TAIL_ROOM_BYTES,
        `${what}: not cut near ${LIMIT} bytes with a note that the output was cut`,
        'a few replacement characters, then the note',
        abbreviate(tail.slice(0, 400)),
      );
    },
  },
];
