import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { Command } from 'commander';
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
import { WirecheckError } from '../harness/errors.js';
import { Fixture as LegacyFixture, FixtureList as LegacyFixtureList } from '../mocks/messages/index.js';
import { secretsOfEnv } from '../recording/tools/redact-target.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import type { CliContext } from './context.js';
import { reportError } from './report-error.js';

/** The verdict on one file, as printed (and as `--json` writes it). */
export interface FileVerdict {
  file: string;
  /** ok: valid; invalid: format or spec violation; unreadable: not a file that can be read. */
  status: 'ok' | 'invalid' | 'unreadable';
  line: string;
  validation?: FixtureValidation;
}

/** Files to validate: each file as given, each directory's `*.json` files (recursively), sorted. */
async function expand(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) out.push(...(await expand(child)));
    else if (entry.name.endsWith('.json')) out.push(child);
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
    text = await readFile(file, 'utf8');
  } catch (e) {
    return { file, status: 'unreadable', line: `cannot read: ${(e as Error).message}` };
  }
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
      // the JSON, the escapes of a string's characters are the JSON escapes of the same.
      if (opts.json) ctx.stdout.write(`${shownUntrusted(JSON.stringify(verdicts, null, 2), ctx.env)}\n`);
      else
        for (const v of verdicts)
          if (v.status !== 'unreadable')
            ctx.stdout.write(`${shownUntrusted(`${v.file}: ${v.line}`, ctx.env)}\n`);
      // A file that cannot be read is an error of the run, not a verdict on a fixture: stderr, with its code.
      for (const v of verdicts) {
        if (v.status === 'unreadable') {
          reportError(ctx.stderr, new WirecheckError('WC_FIXTURE_READ', `${v.file}: ${v.line}`));
        }
      }
      if (files.length === 0)
        ctx.stderr.write(
          `wirecheck fixtures validate: no .json files under ${shownUntrusted(roots.join(', '), ctx.env)}\n`,
        );
      finish(exitCodeOf(verdicts));
    });
  fixtures
    .command('import')
    .description('turn each /v1/messages entry of a HAR file into a fixture (secrets redacted)')
    .argument('<har>', 'the HAR file (as saved by a browser or a proxy)')
    .option('--out <dir>', 'directory for the fixture files (default: the current directory)')
    .action(async (har: string, opts: { out?: string }) => {
      let json: unknown;
      try {
        json = JSON.parse(await readFile(har, 'utf8'));
      } catch (e) {
        throw new WirecheckError('WC_FIXTURE_READ', `${har}: ${(e as Error).message}`, { cause: e });
      }
      let exchanges: ReturnType<typeof importHar>;
      try {
        // Keys of the environment are scrubbed too, wherever the HAR holds them.
        exchanges = importHar(json, har, secretsOfEnv(ctx.env));
      } catch (e) {
        if (e instanceof FixtureFormatError)
          throw new WirecheckError('WC_FIXTURE_READ', e.message, { cause: e });
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
