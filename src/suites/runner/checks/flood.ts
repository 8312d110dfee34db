import { type Check, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { OUTPUT_LIMIT_BYTES } from '../../../protocol/bash/index.js';
import type { MeasuredRun, RunnerCtx, SessionAsker } from '../context.js';
import { abbreviate, describeSession, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import { describePeaks, finalPeak, mib, readSinceFirstOutput } from '../memory.js';
import { CUT_NOTE, saysCut } from '../output-rules.js';
import { canScanProcesses } from '../processes.js';
import { CASE_BUDGET_MS, timedSessionBudgetMs } from './common.js';
import { expectTimedOut } from './timeout.js';

const TRUNCATION =
  'Runner contract for the shell tool, item 5 (Truncation: output cut to 65536 bytes per result)';
const TIMEOUT = 'Runner contract for the shell tool, item 3 (Timeout)';
/** `yes` prints without end; 2 s of it are gigabytes. */
const FLOOD_TIMEOUT_S = 2;
/** Room for the note and the timeout text on top of the kept output. */
const TEXT_ALLOWANCE_BYTES = 4096;
/**
 * How much the runner's process group may grow while `yes` floods it for 2 s (gigabytes):
 * enough for a garbage-collected runtime's churn on a busy machine, far below what keeping
 * the output costs. Measured on the 2-core machine (test runners in test/suites/runner/runners):
 * a Node.js runner that drops what it reads (a fresh 64 KiB buffer per read, left to the GC)
 * grows 83-88 MiB at load 0-8 and once past 128 MiB with the project's tests running beside
 * it (its GC falls behind when the machine is busy); one that keeps up to 384 MiB of output
 * grows 833-872 MiB at the same loads.
 */
export const FLOOD_GROWTH_LIMIT_KIB = 256 * 1024;
const FLOOD_LINE = 1;

/** A quiet command (the runner's footprint once started), then `yes` until the timeout. */
function floodSession(ctx: RunnerCtx, asker: SessionAsker): Promise<MeasuredRun> {
  return ctx.shared('flood', asker, () =>
    ctx.measure({
      lines: [toolUse('echo ready'), toolUse('yes')],
      timeoutS: FLOOD_TIMEOUT_S,
      budgetMs: timedSessionBudgetMs(FLOOD_TIMEOUT_S),
      signal: asker.signal,
    }),
  );
}

export const floodChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.flood.timeout-result',
    schedule: 'alone',
    clause: `${TIMEOUT}; ${TRUNCATION}; Errors (shell command times out)`,
    description: `\`yes\` (output without end) with WIRECHECK_TIMEOUT_S=${FLOOD_TIMEOUT_S}: the timeout result arrives in time, and its text stays within the ${OUTPUT_LIMIT_BYTES}-byte limit (plus the note and the timeout text).`,
    level: 'must',
    basis: 'spec',
    rule: 'The spec, for every runner: a command still running at its timeout is stopped and answered with is_error true and a text stating the timeout; output over 65536 bytes is cut to that length. A command that prints without end is no exception: the runner keeps reading, stops it at the timeout and answers with a bounded text.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await floodSession(ctx, env);
      expectTimedOut(run, FLOOD_LINE, FLOOD_TIMEOUT_S, '`yes` until the timeout', false);
      const bytes = Buffer.byteLength(resultAt(run, FLOOD_LINE, '`yes`').content);
      expectThat(
        bytes <= OUTPUT_LIMIT_BYTES + TEXT_ALLOWANCE_BYTES,
        `\`yes\` until the timeout: the result text is ${bytes} bytes, more than the ${OUTPUT_LIMIT_BYTES}-byte limit allows`,
        `at most ${OUTPUT_LIMIT_BYTES} bytes of output plus ${TEXT_ALLOWANCE_BYTES} for the note and the timeout text`,
        `${bytes} bytes`,
      );
    },
  },
  {
    id: 'runner.flood.output-kept',
    schedule: 'alone',
    clause: `${TIMEOUT} (what a timed-out result holds besides the timeout text is not stated); ${TRUNCATION}`,
    description:
      'The timeout result of `yes` keeps the output printed before the timeout, cut at the limit with the note.',
    level: 'should',
    basis: 'protocol-should',
    rule: 'The spec says a timed-out result states the timeout; it does not say whether the output printed before it is kept. It should be (cut at 65536 bytes with the note like any output): it is what tells a model why the command did not finish.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await floodSession(ctx, env);
      const result = resultAt(run, FLOOD_LINE, '`yes`');
      expectThat(
        // The note follows the kept output: a timeout text before it ("exceeded the time limit") is no note of a cut.
        result.content.includes('y\ny\ny\ny\n') &&
          saysCut(result.content.slice(result.content.lastIndexOf('y\n') + 2)),
        '`yes` until the timeout: the output printed before the timeout is not in the result, cut with the note',
        `"y\\ny\\n..." and a note that the output was cut (matching ${CUT_NOTE}, or naming the limit)`,
        abbreviate(result.content.slice(0, 300)),
      );
    },
  },
  {
    id: 'runner.flood.memory-bounded',
    schedule: 'alone',
    clause: `${TRUNCATION}; Limits (captured output 65536 bytes, runner, per result); not stated: the runner's memory`,
    description: `While \`yes\` floods it for ${FLOOD_TIMEOUT_S} s, the runner's process group (read from /proc, on this machine) grows by less than ${FLOOD_GROWTH_LIMIT_KIB / 1024} MiB: it drops what it does not keep.`,
    level: 'should',
    basis: 'protocol-should',
    rule: `The spec keeps 65536 bytes of output per result but does not speak of the runner's memory. A runner should drop what it will not keep instead of holding all output until the command ends: a command that prints without end must not exhaust the host. Measured as the growth of the peak resident set (VmHWM) summed over the runner's process group (its commands run in groups of their own and are not counted), bounded at ${FLOOD_GROWTH_LIMIT_KIB / 1024} MiB. Not exercised when the group read less than that during the flood (rchar of /proc/<pid>/io; a machine too busy to flood it, a runner that never ran the command) or its reads cannot be measured: a runner keeping all of it would pass too. Judged whatever the result text holds: a runner may keep the whole flood and answer with the timeout text alone.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      if (!canScanProcesses())
        throw new CheckSkipped("this machine has no /proc to read the runner's memory from");
      const { run, memory } = await floodSession(ctx, env);
      // Answered, whatever the text: a runner may hoard the flood and still answer with the
      // timeout text alone. Whether there was a flood is told by what the group read, below.
      resultAt(run, FLOOD_LINE, '`yes`');
      const before = memory?.atFirstOutputKiB;
      const after = memory === undefined ? undefined : finalPeak(memory);
      if (memory === undefined || before === undefined || after === undefined) {
        throw new NotExercised(
          `the runner's process group was not seen in /proc before and during the flood (${memory?.samples.length ?? 0} samples; ${describeSession(run)})`,
        );
      }
      const growth = after - before;
      const read = readSinceFirstOutput(memory);
      // A runner that kept every byte it read grows at least by what it read: below the bound,
      // holding and dropping look alike (a machine too busy for `yes` to flood in 2 s, or a
      // runner that never ran the command). Unmeasured reads show no flood either.
      if (growth < FLOOD_GROWTH_LIMIT_KIB && (read === undefined || read < FLOOD_GROWTH_LIMIT_KIB * 1024)) {
        throw new NotExercised(
          read === undefined
            ? `what the runner's process group read while \`yes\` ran could not be measured (no rchar in /proc/<pid>/io), and it grew by ${mib(growth)}: less than the ${mib(FLOOD_GROWTH_LIMIT_KIB)} bound, so whether there was a flood to hold cannot be told`
            : `the runner's process group read ${mib(read / 1024)} while \`yes\` ran for ${FLOOD_TIMEOUT_S} s (grew by ${mib(growth)}): less than the ${mib(FLOOD_GROWTH_LIMIT_KIB)} bound, so keeping all of it would have passed too (a machine this busy floods too slowly to tell, or the command did not run)`,
        );
      }
      expectThat(
        growth < FLOOD_GROWTH_LIMIT_KIB,
        `while \`yes\` ran for ${FLOOD_TIMEOUT_S} s the runner's process group grew by ${mib(growth)} (peak resident set ${mib(before)} after its first answer, ${mib(after)} at the end): it holds output it does not keep`,
        `growth below ${mib(FLOOD_GROWTH_LIMIT_KIB)}`,
        `${mib(growth)}; by process: ${describePeaks(memory)}`,
      );
    },
  },
];
