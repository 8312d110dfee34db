/**
 * The harness's own errors: one registry of string codes, each with the exit status it
 * leads to and the sentence docs/cli.md shows for it (a test compares the two). These are
 * errors of the run itself (usage, a target that cannot start), never a target's
 * non-conformance: that is a failed check, exit status 1.
 */
export const HARNESS_ERRORS = {
  WC_USAGE: {
    exitCode: 2,
    summary: 'The command line is invalid: unknown option, bad value or missing argument.',
  },
  WC_UNKNOWN_SUITE: {
    exitCode: 2,
    summary: 'No registered suite has that name; the message lists the suites.',
  },
  WC_NO_CHECKS_SELECTED: {
    exitCode: 2,
    summary: 'An `--only` entry matches no check of the suite, so nothing would run.',
  },
  WC_TARGET_UNAVAILABLE: {
    exitCode: 2,
    summary: 'The target (or a reference implementation) could not be started or reached at all.',
  },
  WC_NO_REFERENCE: {
    exitCode: 2,
    summary: '`wirecheck all` found no registered suite with a reference implementation.',
  },
  WC_REPORT_DIR: {
    exitCode: 2,
    summary:
      'The report directory cannot be used, found before the run: it cannot be created, is not a directory, is not writable, is on a pseudo file system (/proc, /sys, /dev), is locked by another run that is still going (.wirecheck.lock), or has a FIFO, socket, device or symbolic link where a report goes.',
  },
  WC_REPORT_WRITE: {
    exitCode: 2,
    summary:
      'A report file could not be written to the report directory during the run; the results are still printed on the console.',
  },
  WC_SERVE_FAILED: { exitCode: 2, summary: '`wirecheck serve` could not start the mock service.' },
  WC_BASELINE: {
    exitCode: 2,
    summary:
      'The `--baseline` file cannot be read (neither a regular file nor a pipe, larger than 1 MiB, a pipe not closed within 10 s), has a malformed line, or names a suite or check that does not exist.',
  },
  WC_MERGE: {
    exitCode: 2,
    summary:
      '`wirecheck merge-reports` cannot combine its inputs: no or invalid results (not a regular file, larger than 64 MiB, a directory that cannot be listed), different seeds, runs, selections, wirecheck versions or shard counts, a check or shard given twice, a check outside its shard or the catalogue, or a shard missing.',
  },
  WC_FIXTURE_READ: {
    exitCode: 2,
    summary: 'A fixture, recording or HAR file could not be read, is not JSON, or is not of its format.',
  },
  WC_RECORD_FAILED: { exitCode: 2, summary: '`wirecheck record` could not start the recording proxy.' },
  WC_INTERNAL: {
    exitCode: 2,
    summary:
      'An unexpected error inside wirecheck or a suite (a bug: please report it), also an uncaught error during a run; the reports are still written with the checks that finished.',
  },
} as const satisfies Record<string, { exitCode: number; summary: string }>;

export type HarnessErrorCode = keyof typeof HARNESS_ERRORS;

/** An error of the harness run, carrying its registry code and exit status. */
export class WirecheckError extends Error {
  override readonly name: string = 'WirecheckError';
  readonly exitCode: number;
  constructor(
    readonly code: HarnessErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.exitCode = HARNESS_ERRORS[code].exitCode;
  }
}

/** Bad usage of the command line or of a suite's target options (exit status 2). */
export class UsageError extends WirecheckError {
  override readonly name = 'UsageError';
  constructor(message: string) {
    super('WC_USAGE', message);
  }
}
