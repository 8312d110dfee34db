import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runProbeCommand } from '../../src/clients/tools/index.js';
import { cli } from './fake-suites.js';

// What a server answered or a fixture file records reaches the terminal through `probe` and
// `fixtures validate`: its escape sequences (the clipboard by OSC 52, a window title, clearing
// the screen) and bidirectional overrides are shown as text, not obeyed.

const SEQUENCES = '\u001b]52;c;cHduZWQ=\u0007\u001b]0;PWNED\u0007\u001b[2J\u202eabc';
/** What a terminal would obey: ESC, BEL, C1, the right-to-left override. */
const OBEYED = /[\u001b\u0007\u0080-\u009f\u202e]/;

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A server answering every request 500 with `body`; resolves with its stream URL. */
async function failingServer(body: string): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`;
}

describe('probe', () => {
  test.each([
    ['the lines', []],
    ['--json', ['--json']],
  ])("a 500's body with escape sequences: %s show them as text", async (_, flags) => {
    const url = await failingServer(`err: ${SEQUENCES}`);
    const run = await cli(['probe', url, ...flags], { deps: { probeToolServer: runProbeCommand } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('cHduZWQ=');
    expect(run.stdout).not.toMatch(OBEYED);
    // The JSON is still what the probe saw: the escapes are JSON's own.
    if (flags.length > 0)
      expect(JSON.stringify(JSON.parse(run.stdout))).toContain(JSON.stringify(SEQUENCES).slice(1, -1));
  });
});

describe('fixtures validate', () => {
  async function fixtureWithEventName(name: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-untrusted-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const library = resolve(import.meta.dirname, '../../fixtures/library/text.json');
    const fixture = JSON.parse(await readFile(library, 'utf8')) as {
      response: { chunks: { text: string }[] };
    };
    const first = fixture.response.chunks[0]!;
    first.text = first.text.replace('event: message_start', `event: ${name}`);
    const file = join(dir, `evil${SEQUENCES.slice(0, 12)}.json`);
    await writeFile(file, JSON.stringify(fixture));
    return dir;
  }

  test.each([
    ['the verdict lines', []],
    ['--json', ['--json']],
  ])('an event name and a file name with escape sequences: %s show them as text', async (_, flags) => {
    const dir = await fixtureWithEventName(`message_start${SEQUENCES}`);
    const run = await cli(['fixtures', 'validate', dir, ...flags]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('message_start');
    expect(run.stdout).toContain('cHduZWQ=');
    expect(run.stdout).not.toMatch(OBEYED);
    if (flags.length > 0) expect(JSON.parse(run.stdout)).toHaveLength(1);
  });
});

describe('serve mock-tools --replay DIR', () => {
  test('the line naming a bad file shows the escape sequences of its name and its problem as text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-untrusted-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const good = resolve(import.meta.dirname, '../../fixtures/library/tool-sessions/stdio.json');
    await writeFile(join(dir, 'a.json'), await readFile(good, 'utf8'));
    await writeFile(join(dir, `b${SEQUENCES}.json`), `{"format": "${SEQUENCES}"`);
    const stopped = new AbortController();
    stopped.abort();
    const run = await cli(['serve', 'mock-tools', '--transport', 'http', '--port', '0', '--replay', dir], {
      shutdown: stopped.signal,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('skipping');
    expect(run.stderr).toContain('cHduZWQ=');
    expect(run.stderr).not.toMatch(OBEYED);
  });
});

// A line feed in a file name would end wirecheck's line and start one the name wrote: a
// fixture named so could print an `ok` line of its own. Each such name stays on its line.
describe('a file name with a line feed stays on its line', () => {
  const FORGED = 'x\nforged.json: ok: SSE stream, 7 frames';

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-untrusted-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  test('fixtures validate: one verdict line per file, and --json keeps the name', async () => {
    const dir = await tempDir();
    const library = resolve(import.meta.dirname, '../../fixtures/library/text.json');
    await writeFile(join(dir, `${FORGED}.json`), await readFile(library, 'utf8'));
    const run = await cli(['fixtures', 'validate', dir]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('x\\nforged.json: ok: SSE stream, 7 frames.json: ok: ');
    const json = await cli(['fixtures', 'validate', dir, '--json']);
    expect((JSON.parse(json.stdout) as { file: string }[])[0]!.file).toBe(join(dir, `${FORGED}.json`));
  });

  test('fixtures validate: a path that cannot be read is one error line', async () => {
    const dir = await tempDir();
    const run = await cli(['fixtures', 'validate', join(dir, `${FORGED}.json`)]);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(run.stderr).toMatch(/^wirecheck: WC_FIXTURE_READ: .*x\\nforged\.json/);
  });

  test('fixtures import: the file written is printed on one line', async () => {
    const dir = await tempDir();
    const har = {
      log: {
        entries: [
          {
            request: { method: 'POST', url: 'http://x/v1/messages', headers: [] },
            response: {
              status: 529,
              headers: [{ name: 'content-type', value: 'application/json' }],
              content: {
                text: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
              },
            },
          },
        ],
      },
    };
    const file = join(dir, `${FORGED}.har`);
    await writeFile(file, JSON.stringify(har));
    const run = await cli(['fixtures', 'import', file, '--out', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${join(dir, 'x\\nforged.json: ok: SSE stream, 7 frames-001.json')}\n`);
  });

  test('serve mock-tools --replay DIR: the skipping line is one line', async () => {
    const dir = await tempDir();
    const good = resolve(import.meta.dirname, '../../fixtures/library/tool-sessions/stdio.json');
    await writeFile(join(dir, 'a.json'), await readFile(good, 'utf8'));
    await writeFile(join(dir, `b${FORGED}.json`), '{');
    const stopped = new AbortController();
    stopped.abort();
    const run = await cli(['serve', 'mock-tools', '--transport', 'http', '--port', '0', '--replay', dir], {
      shutdown: stopped.signal,
    });
    expect(run.code).toBe(0);
    const skipping = run.stderr.split('\n').filter((l) => l.includes('forged'));
    expect(skipping).toHaveLength(1);
    expect(skipping[0]).toMatch(/^wirecheck serve mock-tools: skipping .*bx\\nforged\.json/);
  });
});
