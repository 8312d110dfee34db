import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, CheckFailure, CheckSkipped, expectThat, NotExercised } from '../../../harness/check.js';
import { ORDINARY_TIMEOUT_S, type RunnerCtx, type SessionAsker } from '../context.js';
import { WAS_HERE } from '../cwd-markers.js';
import { abbreviate, type LineQuoting, resultAt } from '../expect.js';
import { toolUse } from '../lines.js';
import {
  canScanProcesses,
  groupLedByRunner,
  type Marker,
  newMarker,
  unexplainedSharedGroup,
} from '../processes.js';
import type { SessionRun } from '../session.js';
import { CASE_BUDGET_MS, quickBudgetMs } from './common.js';

const EXECUTION = 'Runner contract for the shell tool, item 2 (Execution)';
const ENVIRONMENT =
  'Runner contract for the shell tool, item 2 ("a reference runner also restricts the environment")';
const REFERENCE_ENV =
  'The spec describes a restricted environment only for a reference runner ("a reference runner also restricts the environment to a minimal PATH, a HOME equal to the working directory and a fixed USER"), not for every runner.';

/** Which line of the identity session asks what. */
const LINE = { pwd: 0, uid: 1, home: 2, user: 3, path: 4, env: 5, group: 6, nextGroup: 7 } as const;

interface IdentitySession {
  readonly run: SessionRun;
  /** The foreground sleep whose process group and user the harness reads from /proc. */
  readonly marker: Marker;
  /** The same in the next command: a group both commands share outlived each. */
  readonly nextMarker: Marker;
}

/**
 * Where, as whom and with what environment commands run, asked in one session whose
 * working directory does not exist yet.
 */
function identitySession(ctx: RunnerCtx, asker: SessionAsker): Promise<IdentitySession> {
  return ctx.shared('identity', asker, async () => {
    const marker = newMarker(1);
    const nextMarker = newMarker(0.5);
    const lines = [
      toolUse(`pwd -P; touch ${WAS_HERE}`),
      toolUse('id -u'),
      toolUse(`printf '${TAG}HOME=%s\\n' "$HOME"`),
      toolUse(`printf '${TAG}USER=%s\\n' "$USER"`),
      toolUse(`printf '${TAG}PATH=%s\\n' "$PATH"`),
      toolUse('env'),
      toolUse(marker.command),
      toolUse(nextMarker.command),
    ];
    const run = await ctx.run({
      lines,
      timeoutS: ORDINARY_TIMEOUT_S,
      budgetMs: quickBudgetMs(lines.length, 1000),
      watch: [marker, nextMarker],
      signal: asker.signal,
    });
    return { run, marker, nextMarker };
  });
}

/**
 * The session's lines as its failures show them. The `env` line prints the runner's whole
 * environment when the runner passes it on (the user's, secrets included), and a runner that
 * drops or repeats an answer moves that line under another command's index: no line of the
 * session is quoted raw. What a command printed is quoted only once its id proves which
 * command it answers, and `env`'s output never.
 */
const IDENTITY_LINES: LineQuoting = {
  withheld: "it may hold the runner's environment (this session runs `env`)",
};

/** Printed before each value, so a runner that answers without running the command is not read as a value. */
const TAG = 'wirecheck:';

/** A line as `env` prints a variable: such lines are the user's environment, secrets included. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/m;

/**
 * What a command of the identity session printed, as a failure shows it. A runner whose output
 * is cut at the wrong place (ids all right) puts another command's output in an answer, maybe
 * `env`'s: text with a line like a variable's assignment, or longer than those commands print
 * with a line of stderr, is described, not quoted.
 */
function shownOutput(text: string): string {
  const lines = text.replace(/\n$/, '').split(/\r\n|\r|\n/);
  if (!ASSIGNMENT.test(text) && lines.length <= 3) return abbreviate(text);
  return `${lines.length} line(s) of ${text.length} characters, not quoted: ${IDENTITY_LINES.withheld}`;
}

/**
 * The first line a command of the identity session printed, after checking it succeeded: its
 * own output comes first (a line of stderr may follow, or another command's output in a runner
 * that cuts it at the wrong place).
 */
function printedLine(run: SessionRun, index: number, what: string): string {
  const result = resultAt(run, index, what, IDENTITY_LINES);
  expectThat(
    result.is_error === false,
    `${what}: is_error is ${result.is_error}`,
    'is_error false',
    `is_error ${result.is_error}; content ${shownOutput(result.content)}`,
  );
  return result.content.split(/\r\n|\r|\n/)[0] ?? '';
}

/**
 * The uid `id -u` printed: its first line, or, when the runner framed the output in words of
 * its own ("STDOUT:\n65534\n"; item 4 is judged by the runner.output checks), its one line
 * that is a bare number. None, or several: the uid was not seen, so nothing is judged.
 */
function printedUid(run: SessionRun): string {
  const first = printedLine(run, LINE.uid, 'id -u');
  if (/^\d+$/.test(first)) return first;
  const content = resultAt(run, LINE.uid, 'id -u', IDENTITY_LINES).content;
  const numbers = content
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line));
  // Two number lines (an exit code framed before the output) leave which is the uid unknown.
  if (numbers.length !== 1) {
    throw new NotExercised(
      `id -u: ${numbers.length === 0 ? 'no line' : `${numbers.length} lines`} of the result ${numbers.length === 0 ? 'is a user id' : 'are bare numbers'} (${shownOutput(content)}): the command's uid was not seen`,
    );
  }
  return numbers[0]!;
}

/**
 * The value a tagged `printf` printed, after checking it succeeded. A result that does not
 * begin with the tag means the command did not run as sent: nothing to judge.
 */
function printedValue(run: SessionRun, index: number, name: string): string {
  const what = `printf $${name}`;
  const line = printedLine(run, index, what);
  const prefix = `${TAG}${name}=`;
  if (!line.startsWith(prefix)) {
    throw new NotExercised(
      `\`${what}\` did not print its tagged line first (${shownOutput(line)}): the command did not run as sent`,
    );
  }
  return line.slice(prefix.length);
}

/**
 * The lines of `env`'s output that hold the canary's value. Only the harness's own assignment
 * is quoted: the rest of env is the user's environment, secrets included, and a line that holds
 * more than the canary (a runner that joins the output on another separator) may hold it all.
 */
function canaryLines(seen: readonly string[], canaries: RunnerCtx['canaries']): string {
  const planted = `${canaries.variable}=${canaries.value}`;
  if (seen.every((line) => line === planted)) return abbreviate(seen.join('\n'));
  const lengths = seen.map((line) => line.length).join(', ');
  return `${seen.length} line(s) holding its value (of ${lengths} characters), not quoted: they hold more than ${JSON.stringify(planted)}, maybe the rest of the runner's environment`;
}

export const executionChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.execution.workdir',
    clause: `${EXECUTION}: "in a dedicated working directory (created if absent)"; target contract, runner (WIRECHECK_WORKDIR)`,
    description: 'Commands run in WIRECHECK_WORKDIR, which the runner creates when it does not exist yet.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec and the target contract, for every runner: commands run in the dedicated working directory WIRECHECK_WORKDIR names, created by the runner when it does not exist; a file a command creates there is in that directory.',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await identitySession(ctx, env);
      // The directory is judged, not its name: a runner may mount it elsewhere in a sandbox
      // (a container's /work), where `pwd` names another path for the same directory.
      const pwd = printedLine(run, LINE.pwd, 'pwd -P');
      expectThat(
        existsSync(join(run.workdir, WAS_HERE)),
        `a file the command created in its working directory (${shownOutput(pwd)}) is not in ${run.workdir}: the command did not run in WIRECHECK_WORKDIR`,
        `${WAS_HERE} in WIRECHECK_WORKDIR`,
        'absent',
      );
    },
  },
  {
    id: 'runner.execution.not-root',
    clause: `${EXECUTION}: "without privileges of a superuser"`,
    description:
      "Commands do not run as root: id -u is not 0, or the command's process is another user's as the harness sees it (root of a rootless container).",
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every runner: commands run without the privileges of a superuser: `id -u` inside a command is not 0, or, where a user namespace makes the command root inside it (a rootless container), the harness sees the command's process in /proc as an unprivileged user.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run, marker } = await identitySession(ctx, env);
      const uid = printedUid(run);
      if (uid !== '0') return;
      // Root inside a user namespace is an unprivileged user outside it: the harness's view decides.
      const outside = run.seen.get(marker.arg)?.find((p) => p.uid !== undefined)?.uid;
      if (outside !== undefined && outside !== 0) return;
      throw new CheckFailure(
        outside === undefined
          ? 'the command ran as root (id -u printed 0; the harness did not see its process in /proc to tell a user namespace)'
          : 'the command ran as root (id -u printed 0, and /proc shows its process as uid 0 to the harness too)',
        'a uid other than 0',
        '0',
      );
    },
  },
  {
    id: 'runner.execution.process-group',
    clause: `${EXECUTION}: "in its own process group"`,
    description:
      "A command's processes are in a process group of their own, not in the runner's (read from /proc by the harness).",
    level: 'must',
    basis: 'spec',
    rule: "The spec, for every runner: each command runs in its own process group (so that the whole group can be terminated), not in the runner's group.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      if (!canScanProcesses())
        throw new CheckSkipped('this machine has no /proc to read process groups from');
      const { run, marker, nextMarker } = await identitySession(ctx, env);
      resultAt(run, LINE.group, marker.command, IDENTITY_LINES);
      const seen = run.seen.get(marker.arg);
      if (seen === undefined) {
        throw new NotExercised(
          `the harness never saw \`${marker.command}\` in /proc while it ran: the runner's commands are not visible from here (another machine or PID namespace)`,
        );
      }
      // Pids and pgids only in `actual`: they differ in every run, and the message and what
      // was expected are to read the same with one seed.
      for (const p of seen) {
        if (run.runnerGroups.has(p.pgid)) {
          throw new CheckFailure(
            `\`${marker.command}\` ran in the runner's own process group`,
            "a process group other than the runner's",
            `pid ${p.pid} pgid ${p.pgid}; the runner's group${run.runnerGroups.size === 1 ? '' : 's'}: ${[...run.runnerGroups].join(', ')}`,
          );
        }
      }
      const next = run.seen.get(nextMarker.arg);
      const shared =
        next === undefined || run.runnerStdio === undefined
          ? undefined
          : groupLedByRunner(seen, next, run.runnerStdio);
      if (shared !== undefined) {
        throw new CheckFailure(
          `two commands ran in one process group, led by \`${abbreviate(shared.leader?.argv.join(' ') ?? '')}\`, which reads the runner's lines and writes its answers: the runner's own group (it left the group the harness started it in)`,
          'a process group of the command, not the runner process',
          `pgid ${shared.pgid}`,
        );
      }
      const unexplained = next === undefined ? undefined : unexplainedSharedGroup(seen, next);
      if (unexplained !== undefined) {
        throw new NotExercised(
          `two commands ran in one process group, led by \`${abbreviate(unexplained.leader?.argv.join(' ') ?? '')}\`, neither a shell nor a sandbox nor a process holding the runner's pipes as the harness sees them (a runner behind a relay holds the relay's): whether it is the runner's group cannot be told`,
        );
      }
    },
  },
];

export const environmentChecks: Check<RunnerCtx>[] = [
  {
    id: 'runner.environment.home',
    clause: `${ENVIRONMENT}: HOME equal to the working directory`,
    description: 'HOME is the working directory.',
    level: 'should',
    basis: 'spec-reference',
    rule: `${REFERENCE_ENV} Following it, HOME is the working directory.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await identitySession(ctx, env);
      const home = printedValue(run, LINE.home, 'HOME');
      expectThat(home === run.workdir, 'HOME is not the working directory', run.workdir, abbreviate(home));
    },
  },
  {
    id: 'runner.environment.user',
    clause: `${ENVIRONMENT}: a fixed USER`,
    description: "USER is set by the runner (not empty, not inherited from the runner's own environment).",
    level: 'should',
    basis: 'spec-reference',
    rule: `${REFERENCE_ENV} Following it, USER is a fixed name the runner sets, not the runner's own.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await identitySession(ctx, env);
      const user = printedValue(run, LINE.user, 'USER');
      expectThat(user !== '', 'USER is empty or unset', 'a fixed user name', '""');
      expectThat(
        user !== ctx.canaries.user,
        "USER was inherited from the runner's own environment",
        'a user name the runner sets',
        user,
      );
    },
  },
  {
    id: 'runner.environment.path',
    clause: `${ENVIRONMENT}: a minimal PATH`,
    description: "PATH is the runner's own minimal one, not inherited from the runner's environment.",
    level: 'should',
    basis: 'spec-reference',
    rule: `${REFERENCE_ENV} Following it, PATH is a minimal one the runner sets, not the runner's own.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await identitySession(ctx, env);
      const path = printedValue(run, LINE.path, 'PATH');
      expectThat(path !== '', 'PATH is empty or unset', 'a minimal PATH', '""');
      expectThat(
        !path.split(':').includes(ctx.canaries.pathEntry),
        `PATH was inherited from the runner's own environment (it holds ${ctx.canaries.pathEntry}, which the harness put there)`,
        'a PATH the runner sets',
        abbreviate(path),
      );
    },
  },
  {
    id: 'runner.environment.no-inherited-variables',
    clause: ENVIRONMENT,
    description: "A variable set only in the runner's own environment is not visible to commands.",
    level: 'should',
    basis: 'spec-reference',
    rule: `${REFERENCE_ENV} Following it, a variable of the runner's own environment (a secret, say) is not visible to commands.`,
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const { run } = await identitySession(ctx, env);
      const result = resultAt(run, LINE.env, 'env', IDENTITY_LINES);
      if (!/^[A-Za-z_][A-Za-z0-9_]*=/m.test(result.content)) {
        // Not quoted either: an environment printed in another form (`declare -x`, `export`) is still one.
        throw new NotExercised(
          `\`env\` printed no variable (a text of ${result.content.length} characters, not quoted: it may hold the runner's environment): the command did not run as sent`,
        );
      }
      const seen = result.content.split('\n').filter((line) => line.includes(ctx.canaries.value));
      expectThat(
        seen.length === 0,
        `${ctx.canaries.variable}, set only for the runner, is visible to the command`,
        `no ${ctx.canaries.variable} in env`,
        canaryLines(seen, ctx.canaries),
      );
    },
  },
];
