import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { isFixtureFileName, isPartialFile } from '../fixtures/exchange-file.js';
import { FIXTURE_READ_LIMIT, parseFixtureFileText } from '../fixtures/format.js';
import { HAR_READ_LIMIT } from '../fixtures/har.js';
import {
  BUNDLED_LIBRARY_DIR,
  describeValidation,
  FixtureFormatError,
  type FixtureValidation,
  fixtureIssues,
  importHar,
  parseFixture,
  validateFixture,
  writeFixtureFile,
} from '../fixtures/index.js';
import { formatBytes, readBounded } from '../harness/bounded-read.js';
import { WirecheckError } from '../harness/errors.js';
import { Fixture as LegacyFixture, FixtureList as LegacyFixtureList } from '../mocks/messages/index.js';
import { secretsOfEnv } from '../recording/tools/redact-target.js';
import { shownUntrusted, withoutLineBreaks } from '../reporters/untrusted-text.js';
import type { CliContext } from './context.js';
import { reportError } from './report-error.js';

/** The verdict on one file, as printed (and as `--json` writes it). */
export interface FileVerdict {
  file: string;
  /** ok: valid; invalid: format or spec violation; unreadable: not a file that can be read. */
  status: 'ok' | 'invalid' | 'unreadable';
  line: string;
  validation?: FixtureValidation;
  /** A partial recording (`*.json.partial`), read as the exchange or session so far. */
  partial?: true;
}

/**
 * Files to validate: each file as given, each directory's fixture files (recursively, sorted):
 * `*.json`, and the `*.json.partial` files a recorder stopped mid-exchange left, which a
 * replay of the directory serves.
 */
async function expand(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) out.push(...(await expand(child)));
    else if (isFixtureFileName(entry.name)) out.push(child);
  }
  return out;
}

/**
 * The verdict on one file. Files of the mock's hand-written reply format
 * (fixtures/messages, read by fixtureScenario) are recognised and checked against that
 * format, so a whole fixtures/ tree can be validated at once.
 */
export async function verdictOf(file: string): Promise<FileVerdict> {
  let text: string;
  try {
    // As readFixtureFile refuses them: a FIFO would block, a huge file be held whole.
    const info = await stat(file);
    if (!info.isFile()) return { file, status: 'unreadable', line: 'cannot read: not a regular file' };
    if (info.size > FIXTURE_READ_LIMIT) {
      const line = `cannot read: the file is ${info.size} bytes, over the ${FIXTURE_READ_LIMIT}-byte limit of a fixture`;
      return { file, status: 'unreadable', line };
    }
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { file, status: 'unreadable', line: `cannot read: ${(e as Error).message}` };
  }
  if (isPartialFile(file)) return partialVerdictOf(file, text);
  // A whole file is read here rather than by parseFixtureText: it may be of the mock's reply
  // format, and a fixture's format problems are listed (up to five), not only the first.
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { file, status: 'invalid', line: `INVALID: not JSON: ${(e as Error).message}` };
  }
  const object = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  if (!('format' in object) && ('reply' in object || 'fixtures' in object)) {
    const legacy = ('fixtures' in object ? LegacyFixtureList : LegacyFixture).safeParse(json);
    if (legacy.success)
      return { file, status: 'ok', line: 'ok: a mock reply fixture (fixtures/messages format)' };
    const issue = legacy.error.issues[0];
    return {
      file,
      status: 'invalid',
      line: `INVALID: mock reply fixture: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    };
  }
  const issues = fixtureIssues(json);
  if (issues.length > 0) {
    const shown = issues.slice(0, 5).map((i) => `${i.path || '(root)'}: ${i.message}`);
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    return { file, status: 'invalid', line: `INVALID: format: ${shown.join('; ')}${more}` };
  }
  const validation = validateFixture(parseFixture(json, file));
  return { file, status: validation.ok ? 'ok' : 'invalid', line: describeValidation(validation), validation };
}

/** A partial recording, read as every replay reads it (the exchange or session so far), then validated. */
function partialVerdictOf(file: string, text: string): FileVerdict {
  let fixture: ReturnType<typeof parseFixtureFileText>;
  try {
    fixture = parseFixtureFileText(text, file);
  } catch (e) {
    if (!(e instanceof FixtureFormatError)) throw e;
    const where = e.path === '' ? '' : `${e.path}: `;
    return {
      file,
      status: 'invalid',
      line: `INVALID: partial recording: ${where}${e.problem}`,
      partial: true,
    };
  }
  const validation = validateFixture(fixture);
  const what =
    fixture.kind !== 'messages-exchange'
      ? 'the session as journaled until the recorder stopped'
      : fixture.truncated
        ? 'the recording was cut: the exchange so far'
        : 'a whole exchange not yet renamed';
  return {
    file,
    status: validation.ok ? 'ok' : 'invalid',
    line: `${describeValidation(validation)} (partial recording: ${what})`,
    validation,
    partial: true,
  };
}

function exitCodeOf(verdicts: readonly FileVerdict[]): number {
  if (verdicts.some((v) => v.status === 'unreadable')) return 2;
  return verdicts.some((v) => v.status === 'invalid') ? 1 : 0;
}

export function addFixturesCommand(
  program: Command,
  ctx: CliContext,
  finish: (exitCode: number) => void,
): void {
  const fixtures = program.command('fixtures').description('check and import recorded fixtures');
  fixtures
    .command('validate')
    .description('check fixture files: the format, and whether each recorded stream obeys the spec')
    .argument('[paths...]', 'fixture files or directories (default: the bundled library)')
    .option('--json', 'print the verdicts as a JSON array')
    .action(async (paths: string[], opts: { json?: boolean }) => {
      const roots = paths.length > 0 ? paths : [BUNDLED_LIBRARY_DIR];
      const files = (await Promise.all(roots.map(expand))).flat();
      const verdicts: FileVerdict[] = [];
      for (const file of files) verdicts.push(await verdictOf(file));
      // A file's name and what it records (an event name) are printed: shown, not obeyed. In
      // the JSON, the escapes of a string's characters are the JSON escapes of the same, and
      // every line break is the pretty-printer's (a string holds none raw): shown line by line.
      if (opts.json) {
        const lines = JSON.stringify(verdicts, null, 2).split('\n');
        ctx.stdout.write(`${lines.map((line) => shownUntrusted(line, ctx.env)).join('\n')}\n`);
      } else
        for (const v of verdicts)
          if (v.status !== 'unreadable')
            ctx.stdout.write(`${shownUntrusted(`${v.file}: ${v.line}`, ctx.env)}\n`);
      // A file that cannot be read is an error of the run, not a verdict on a fixture: stderr, with its code.
      for (const v of verdicts) {
        if (v.status === 'unreadable') {
          // One line: reportError keeps line breaks (a stack's), and a file name may hold one.
          reportError(
            ctx.stderr,
            new WirecheckError('WC_FIXTURE_READ', withoutLineBreaks(`${v.file}: ${v.line}`)),
          );
        }
      }
      if (files.length === 0) {
        // Nothing checked is no verdict: exit 0 here would pass a CI step pointed at a wrong path.
        reportError(
          ctx.stderr,
          new WirecheckError(
            'WC_FIXTURE_READ',
            `no fixture file (*.json or *.json.partial) under ${withoutLineBreaks(roots.join(', '))}: nothing was validated`,
          ),
        );
        finish(2);
        return;
      }
      finish(exitCodeOf(verdicts));
    });
  fixtures
    .command('import')
    .description('turn each /v1/messages entry of a HAR file into a fixture (secrets redacted)')
    .argument('<har>', 'the HAR file (as saved by a browser or a proxy)')
    .option('--out <dir>', 'directory for the fixture files (default: the current directory)')
    .action(async (har: string, opts: { out?: string }) => {
      const cannot = (reason: string, cause?: unknown) =>
        new WirecheckError('WC_FIXTURE_READ', withoutLineBreaks(`${har}: ${reason}`), { cause });
      // Not trusted to be what its name says: a FIFO would block a plain read for good, a link
      // to /dev/zero never end, a huge file be held whole before a byte of it is parsed.
      let text: string;
      try {
        const read = await readBounded(har, { maxBytes: HAR_READ_LIMIT });
        if (read.kind === 'too-large')
          throw cannot(
            `expected a HAR file of at most ${formatBytes(HAR_READ_LIMIT)} (${HAR_READ_LIMIT} bytes), found ${read.bytes} bytes: not read`,
          );
        if (read.kind !== 'text')
          throw cannot(
            `expected a regular file (a HAR as saved by a browser or a proxy), found ${read.kind === 'not-a-file' ? read.what : 'a pipe'}: not read`,
          );
        text = read.text;
      } catch (e) {
        if (e instanceof WirecheckError) throw e;
        throw cannot((e as Error).message, e);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw cannot(`not JSON: ${(e as Error).message}`, e);
      }
      let exchanges: ReturnType<typeof importHar>;
      try {
        // Keys of the environment are scrubbed too, wherever the HAR holds them.
        exchanges = importHar(json, har, secretsOfEnv(ctx.env));
      } catch (e) {
        if (e instanceof FixtureFormatError)
          throw new WirecheckError('WC_FIXTURE_READ', withoutLineBreaks(e.message), { cause: e });
        throw e;
      }
      if (exchanges.length === 0) {
        ctx.stderr.write(
          `wirecheck fixtures import: no /v1/messages entries with a response in ${shownUntrusted(har, ctx.env)}\n`,
        );
        finish(1);
        return;
      }
      const out = resolve(opts.out ?? '.');
      const stem = basename(har, extname(har));
      for (const [i, exchange] of exchanges.entries()) {
        const file = join(out, `${stem}-${String(i + 1).padStart(3, '0')}.json`);
        await writeFixtureFile(file, exchange);
        ctx.stdout.write(`${shownUntrusted(file, ctx.env)}\n`);
      }
      finish(0);
    });
}
