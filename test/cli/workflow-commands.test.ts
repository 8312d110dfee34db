import { afterEach, describe, expect, test } from 'vitest';
import { CheckFailure, type Suite } from '../../src/harness/check.js';
import { cli, type FakeTarget, fakeEntry, registerAll } from './fake-suites.js';

// The GitHub Actions runner obeys workflow commands in any line of a step's output: a line
// that starts with `::` once its leading blanks are trimmed (so an indented line of a quoted
// stderr counts), or that holds `##[` anywhere. A target's text in wirecheck's console could
// mask the word FAIL, set a step's outputs or write annotations. Under GITHUB_ACTIONS=true
// wirecheck stops the runner's commands for the length of its output with a random token,
// and filters its output too; elsewhere nothing changes.

/** What the target writes (a runner's stderr a check quotes, what its close leaves). */
const HOSTILE = '::add-mask::FAIL\n::set-output name=verdict::pass\n::error::x\n##[warning]y';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

function hostileSuite(): Suite<FakeTarget, object> {
  return {
    name: 'hostile',
    description: 'a suite whose target writes workflow commands',
    checks: [
      {
        id: 'hostile.quotes',
        clause: 'Events rule 1',
        description: 'quotes the stderr of its target',
        level: 'must',
        basis: 'spec',
        rule: 'The rule, stated for every target.',
        run: async () => {
          throw new CheckFailure(`the runner failed; stderr:\n${HOSTILE}`, 'a result line', HOSTILE);
        },
      },
    ],
    describeTarget: (t) => t.url,
    targetArgs: (t) => ['--fake-url', t.url],
    open: async () => ({ close: async () => `left behind:\n${HOSTILE}` }),
  };
}

const STOP = /^::stop-commands::(wirecheck-[0-9a-f]{32})$/;

/** The commands the runner knows (its command extensions); any other name is plain output. */
const KNOWN = new Set(
  'add-mask set-output set-env add-path save-state error warning notice debug group endgroup echo add-matcher remove-matcher stop-commands'.split(
    ' ',
  ),
);

/**
 * The commands the runner carries out reading `lines` in this order (actions/runner,
 * ActionCommandManager.TryProcessCommand and ActionCommand.TryParseV2/TryParse): a line that
 * starts with `::` once trimmed, or holds `##[`, naming a known command or the token that
 * resumes; while stopped, only that resume. The stop and resume lines themselves are left out.
 */
function commandsRun(lines: readonly string[]): string[] {
  let token: string | undefined;
  const run: string[] = [];
  for (const line of lines) {
    const v2 = /^::([^:\s]+)[^:]*::(.*)$/.exec(line.trimStart());
    const legacy = /##\[([^\]\s]+)[^\]]*\](.*)$/.exec(line);
    const name = (v2?.[1] ?? legacy?.[1])?.toLowerCase();
    if (name === undefined || !(KNOWN.has(name) || name === token?.toLowerCase())) continue;
    if (token !== undefined) {
      if (name === token.toLowerCase()) token = undefined;
    } else if (name === 'stop-commands') token = v2?.[2] ?? legacy?.[2];
    else run.push(line);
  }
  return run;
}

/** Each way the runner may read two pipes' lines: one before the other, or one line of each in turn. */
function interleavings(a: readonly string[], b: readonly string[]): string[][] {
  const alternate = (x: readonly string[], y: readonly string[]) =>
    Array.from({ length: Math.max(x.length, y.length) }, (_, i) => [x[i], y[i]]).flat() as string[];
  return [[...a, ...b], [...b, ...a], alternate(a, b), alternate(b, a)].map((l) =>
    l.filter((line) => line !== undefined),
  );
}

/**
 * The worst order for the filter alone: a stream's resume is read before everything else the
 * other stream wrote, which the runner then reads with commands on.
 */
function earlyResume(a: readonly string[], b: readonly string[]): string[] {
  return [...a, ...b];
}

const linesOf = (text: string) => text.split('\n').filter((l) => l !== '');

describe('under GITHUB_ACTIONS=true', () => {
  test('a run writes its output between a stop with a random token and its resume, on stdout and on stderr', async () => {
    cleanup.push(registerAll(fakeEntry(hostileSuite())));
    const run = await cli(['test', 'hostile', '--fake-url', 'http://127.0.0.1:9'], {
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(run.code).toBe(1);
    for (const text of [run.stdout, run.stderr]) {
      const lines = linesOf(text);
      const token = STOP.exec(lines[0] ?? '')?.[1];
      expect(token, text).toBeDefined();
      expect(lines.at(-1)).toBe(`::${token}::`);
    }
    // The failure and the warning are there, their text kept but no line of it a command.
    expect(run.stdout).toContain('add-mask::FAIL');
    expect(run.stderr).toContain('warning: suite hostile: left behind');
    expect(run.stdout).toContain('##\\u005bwarning]y');
    const out = linesOf(run.stdout);
    const err = linesOf(run.stderr);
    expect(STOP.exec(out[0]!)?.[1]).toBe(STOP.exec(err[0]!)?.[1]);
    for (const order of [...interleavings(out, err), earlyResume(out, err), earlyResume(err, out)]) {
      expect(commandsRun(order)).toEqual([]);
    }
  });

  test('the token differs from run to run', async () => {
    cleanup.push(registerAll(fakeEntry(hostileSuite())));
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const run = await cli(['test', 'hostile', '--fake-url', 'http://127.0.0.1:9'], {
        env: { GITHUB_ACTIONS: 'true' },
      });
      tokens.add(STOP.exec(linesOf(run.stdout)[0]!)?.[1] ?? '');
    }
    expect(tokens.size).toBe(3);
  });

  test('an error that ends the command is written before the resume', async () => {
    const run = await cli(['fixtures', 'validate', '/nonexistent/::error::x.json'], {
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(run.code).toBe(2);
    const err = linesOf(run.stderr);
    expect(err.some((l) => l.includes('WC_FIXTURE_READ'))).toBe(true);
    expect(err.at(-1)).toBe(`::${STOP.exec(err[0]!)?.[1]}::`);
    expect(commandsRun(err)).toEqual([]);
  });

  test('with --json, stdout is the JSON text alone: the stop and resume lines go to stderr only', async () => {
    const run = await cli(['fixtures', 'validate', '--json', '/nonexistent/\n::error::x.json'], {
      env: { GITHUB_ACTIONS: 'true' },
    });
    expect(run.code).toBe(2);
    const verdicts = JSON.parse(run.stdout) as { file: string }[];
    expect(verdicts.map((v) => v.file)).toEqual(['/nonexistent/\n::error::x.json']);
    const err = linesOf(run.stderr);
    const token = STOP.exec(err[0] ?? '')?.[1];
    expect(token, run.stderr).toBeDefined();
    expect(err.at(-1)).toBe(`::${token}::`);
    // The runner keeps one stop for both pipes: stdout read first is read with commands on.
    for (const order of [...interleavings(linesOf(run.stdout), err), earlyResume(err, linesOf(run.stdout))]) {
      expect(commandsRun(order)).toEqual([]);
    }
  });

  test('a command whose output is a protocol or that serves in the background is not stopped', async () => {
    const stopped = new AbortController();
    stopped.abort();
    const run = await cli(['serve', 'mock-tools', '--transport', 'http', '--port', '0'], {
      env: { GITHUB_ACTIONS: 'true' },
      shutdown: stopped.signal,
    });
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain('stop-commands');
  });
});

test('elsewhere nothing changes: no stop line, the text as it was', async () => {
  cleanup.push(registerAll(fakeEntry(hostileSuite())));
  const run = await cli(['test', 'hostile', '--fake-url', 'http://127.0.0.1:9'], { env: {} });
  expect(run.code).toBe(1);
  expect(`${run.stdout}${run.stderr}`).not.toContain('stop-commands');
  expect(run.stdout).toContain('      ::error::x');
  expect(run.stdout).toContain('##[warning]y');
});
