import { randomBytes } from 'node:crypto';
import { INTERRUPT_SIGNALS } from '../harness/stop.js';
import { readByGitHubActions, workflowCommandFilter } from '../reporters/untrusted-text.js';
import type { CliContext, OutputStream } from './context.js';
import { pendingResumes } from './workflow-resume.js';

// The GitHub Actions runner obeys workflow commands (`::add-mask::`, `::error::`,
// `::set-output ...`, the legacy `##[...]`) in any line of a job's output, after trimming its
// leading blanks, so a target's text that wirecheck quotes (an indented stderr line in a
// failure) could set a step's outputs, mask the word FAIL or write annotations. Under
// GITHUB_ACTIONS=true a command that prints what targets or files say does two things:
//
// - it writes `::stop-commands::TOKEN` before anything else and `::TOKEN::` after everything,
//   GitHub's own mechanism: between them the runner obeys no command, of either form
//   (actions/runner, ActionCommandManager.TryProcessCommand). The token is random per run, so
//   no target can write the resume line. The runner keeps one stop flag and one token for
//   both pipes, and reads their lines in an order of its own (each pipe's in order, not the
//   two with each other): the first stop read stops both, the first resume read resumes both,
//   and the other pipe's stop or resume, read later, is plain output (its token no longer
//   expected). Both lines go to stdout and to stderr all the same, so whichever pipe the
//   runner reads first, no line of wirecheck's is read before a stop, and once wirecheck has
//   ended the runner is resumed. A command given `--json` writes the two lines on stderr
//   only: its stdout is one JSON text, which a stop line would break.
// - what it writes in between is filtered (withoutWorkflowCommands): the first resume read
//   may come before the other pipe's last lines (or a stdout with no stop line of its own
//   may be read before stderr's stop), which the runner then reads with commands on.

/** The commands that print what a target or a file says: their output is guarded. */
const GUARDED = new Set(['test', 'all', 'merge-reports', 'probe', 'fixtures validate', 'fixtures import']);

export interface WorkflowCommandGuard {
  /** The context commands write through: its output filtered while stopped. */
  readonly ctx: CliContext;
  /**
   * Stop the runner's commands if the command `path` (`fixtures validate`) prints what targets
   * or files say; `json`: its stdout is a JSON text, where no stop or resume line may go.
   */
  stopFor(path: string, options?: { readonly json?: boolean }): void;
  /** Write the resume line, if stopped (once). */
  resume(): void;
}

/** A stream whose text is filtered while `filtering()` says so, knowing whether its last line is complete. */
function guardedStream(stream: OutputStream, filtering: () => boolean) {
  let filter = workflowCommandFilter();
  let lineDone = true;
  // Bytes pass unfiltered: no guarded command writes bytes, and a filter would have to decode them.
  const write = (chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' && filtering() ? filter(chunk) : chunk;
    if (text.length > 0) lineDone = typeof text === 'string' ? text.endsWith('\n') : text.at(-1) === 0x0a;
    return stream.write(text);
  };
  const proxy = new Proxy(stream, {
    get(target, name) {
      if (name === 'write') return write;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    proxy,
    /** Writes `line` unfiltered on a line of its own; the filter starts again at a line's start. */
    own(line: string) {
      stream.write(lineDone ? `${line}\n` : `\n${line}\n`);
      lineDone = true;
      filter = workflowCommandFilter();
    },
  };
}

/**
 * The guard of one CLI invocation: inert unless the GitHub Actions runner reads its output
 * (GITHUB_ACTIONS=true), and then only for the commands that print what targets or files
 * say (not a stdio relay, whose stdout is a protocol, nor a server left running in the
 * background, whose stop would silence the commands of the steps around it).
 */
export function workflowCommandGuard(ctx: CliContext): WorkflowCommandGuard {
  if (!readByGitHubActions(ctx.env)) return { ctx, stopFor: () => {}, resume: () => {} };
  let token: string | undefined;
  /** Whether stdout holds the stop and resume lines too (not when it is a JSON text). */
  let stdoutMarked = true;
  const stdout = guardedStream(ctx.stdout, () => token !== undefined);
  const stderr = guardedStream(ctx.stderr, () => token !== undefined);
  const resume = () => {
    if (token === undefined) return;
    const line = `::${token}::`;
    token = undefined;
    pendingResumes.delete(resume);
    process.off('exit', resume);
    for (const signal of INTERRUPT_SIGNALS) process.off(signal, onSignal);
    if (stdoutMarked) stdout.own(line);
    stderr.own(line);
  };
  // A command that does not handle a signal dies of it, with no 'exit' handler run: resumed
  // first, then the signal's own end. One that handles it (a run, a probe) resumes as it ends.
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    resume();
    process.kill(process.pid, signal);
  };
  return {
    ctx: { ...ctx, stdout: stdout.proxy, stderr: stderr.proxy },
    stopFor(path, options = {}) {
      if (token !== undefined || !GUARDED.has(path)) return;
      const chosen = `wirecheck-${randomBytes(16).toString('hex')}`;
      // A JSON text's escapes put no `:` at a line's start, and shownUntrusted escapes `##[`:
      // filtered, stdout needs no lines of its own, and the stop on stderr stops both pipes.
      stdoutMarked = options.json !== true;
      if (stdoutMarked) stdout.own(`::stop-commands::${chosen}`);
      stderr.own(`::stop-commands::${chosen}`);
      token = chosen;
      pendingResumes.add(resume);
      // process.exit (a stopped run's grace timer, a closed output) runs 'exit' handlers.
      process.once('exit', resume);
      for (const signal of INTERRUPT_SIGNALS) process.on(signal, onSignal);
    },
    resume,
  };
}
