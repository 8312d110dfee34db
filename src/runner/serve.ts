import { createLineSplitter, DEFAULT_TIMEOUT_S, type InputLine } from '../protocol/bash/index.js';
import { type BashRunner, type BashRunnerOptions, createBashRunner, RunAbortedError } from './runner.js';

export interface ServeLinesOptions {
  readonly runner: BashRunner;
  /** JSON Lines, one tool_use block per line. */
  readonly input: AsyncIterable<string | Uint8Array>;
  /**
   * Receives each result line, newline included. A promise returned says the output is behind
   * (writeOrBehind): the next line is not run until it settles, so a client that sends
   * commands and never reads their results costs a full pipe, not the runner's memory.
   */
  readonly writeLine: (line: string) => void | Promise<void>;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The runner contract of the target contract (README): exactly one tool_result line per input line, in
 * order, each line run to completion before the next is read; malformed lines get an
 * error result. Resolves when the input ends (or the signal stops it), with the count.
 */
export async function serveJsonLines(
  options: ServeLinesOptions,
): Promise<{ lines: number; aborted: boolean }> {
  const { runner, writeLine, signal } = options;
  const splitter = createLineSplitter();
  let lines = 0;
  const answer = async (line: InputLine): Promise<void> => {
    const report = await runner.runLine(line, signal === undefined ? {} : { signal });
    const behind = writeLine(`${JSON.stringify(report.result)}\n`);
    lines += 1;
    // Stopped while behind, it stops: the client reading nothing must not hold the runner.
    if (behind !== undefined) await caughtUpOrStopped(behind, signal);
  };
  try {
    for await (const chunk of options.input) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      for (const line of splitter.push(bytes)) await answer(line);
      if (signal?.aborted) return { lines, aborted: true };
    }
    for (const line of splitter.end()) await answer(line);
  } catch (error) {
    if (error instanceof RunAbortedError) return { lines, aborted: true };
    throw error;
  }
  return { lines, aborted: signal?.aborted ?? false };
}

export interface RunBashServiceOptions extends BashRunnerOptions {
  readonly input: AsyncIterable<string | Uint8Array>;
  readonly writeLine: ServeLinesOptions['writeLine'];
  readonly signal?: AbortSignal | undefined;
}

/**
 * `wirecheck run-bash`: starts the runner (the isolation level goes to the log), serves
 * stdin until it closes, then kills what is left and cleans up. Rejects with
 * RunnerStartError when the runner cannot start.
 */
export async function runBashService(
  options: RunBashServiceOptions,
): Promise<{ lines: number; aborted: boolean }> {
  const log = options.log ?? (() => {});
  const runner = await createBashRunner(options);
  log(
    `serving tool_use lines; working directory ${options.workdir}, timeout ${options.timeoutS ?? DEFAULT_TIMEOUT_S} s`,
  );
  try {
    return await serveJsonLines({
      runner,
      input: options.input,
      writeLine: options.writeLine,
      signal: options.signal,
    });
  } finally {
    await runner.close();
  }
}

/** Settles once the output caught up, or at once when `signal` is (or gets) aborted. */
async function caughtUpOrStopped(behind: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return behind;
  if (signal.aborted) return;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  signal.addEventListener('abort', stop, { once: true });
  try {
    await Promise.race([behind, stopped]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
