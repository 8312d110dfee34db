import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { CheckFailure, type Suite, TargetUnavailable } from '../../src/harness/check.js';
import { LeftoverLedger } from '../../src/harness/containment/leftovers.js';
import { runSuite } from '../../src/harness/run-suite.js';
import { shownTarget, shownTargetArgs } from '../../src/harness/shown-target.js';
import { MIN_FRAGMENT } from '../../src/recording/cut-fragments.js';
import { isSecretName } from '../../src/recording/redact.js';
import { findSuite } from '../../src/suites/registry.js';
import { targetScrubber } from '../../src/suites/target-secrets.js';

// A credential written into a target (a command's `API_TOKEN=`/`--token`, a URL's `?api_key=` or
// user info) reaches no report: the description and the reproduce line show it redacted, and
// the suite's scrubber hides its value wherever a result quotes it (a 401 echoing the key).

const KEY = 'sk-live-0123456789';
const TOKEN = 'tok-0123456789abcdef';
const FLAG = 'tk-flag-0123456789';
const PASSWORD = 'pa55word-0123';
const SECRETS = [KEY, TOKEN, FLAG, PASSWORD];

const COMMAND = `API_TOKEN=${TOKEN} node target.js --token ${FLAG}`;
const URL_WITH_KEY = `http://deploy:${PASSWORD}@127.0.0.1:8000/mcp?api_key=${KEY}`;

const targets: [suite: string, label: string, options: Record<string, unknown>][] = [
  ['tool-server', '--stdio', { stdio: COMMAND }],
  ['tool-server', '--http with --start', { http: URL_WITH_KEY, start: COMMAND }],
  ['tool-server', '--sse', { sse: URL_WITH_KEY }],
  // A user and password in a base URL are a usage error (no request could send them): a key in the query stands here.
  ['messages-service', '--base-url', { baseUrl: `http://127.0.0.1:8080?api_key=${KEY}` }],
  ['messages-client', '--client', { client: COMMAND }],
  ['runner', '--runner', { runner: COMMAND }],
  ['agent', '--agent', { agent: COMMAND }],
  ['tool-client', '--client', { client: COMMAND }],
];

describe('a credential written into the target reaches no report', () => {
  test.each(targets)('%s %s: the description and the reproduce line show it redacted', (name, _, options) => {
    const entry = findSuite(name)!;
    const target = entry.targetFromOptions(options);
    const shown = JSON.stringify([shownTarget(entry.suite, target), shownTargetArgs(entry.suite, target)]);
    for (const secret of SECRETS) expect(shown).not.toContain(secret);
    expect(shown).toContain('[redacted]');
    // What is not a credential stays as given.
    expect(shown).toMatch(/node target\.js|127\.0\.0\.1:80[08]0/);
  });

  test.each(targets)('%s %s: its value is scrubbed from what a result quotes', (name, _, options) => {
    const entry = findSuite(name)!;
    const target = entry.targetFromOptions(options);
    const scrub = entry.suite.scrubber?.(target);
    const written = SECRETS.filter((s) => JSON.stringify(options).includes(s));
    const quoted = written.map((s) => `HTTP 401: bad credential ${s}`).join('\n');
    expect(scrub?.(quoted)).toBe(written.map(() => 'HTTP 401: bad credential [redacted]').join('\n'));
  });

  test('messages-service: the key of --api-key-env is scrubbed from what a result quotes (a 401 naming it)', () => {
    const entry = findSuite('messages-service')!;
    const name = 'WIRECHECK_TARGET_SECRETS_TEST_KEY';
    process.env[name] = KEY;
    try {
      const target = entry.targetFromOptions({ baseUrl: 'http://127.0.0.1:8080', apiKeyEnv: name });
      expect(entry.suite.scrubber?.(target)?.(`401: invalid x-api-key ${KEY}`)).toBe(
        '401: invalid x-api-key [redacted]',
      );
    } finally {
      delete process.env[name];
    }
  });

  test('a target without credentials is shown as given, with no scrubber', () => {
    // Credentials of the environment (a CI job's token) would be scrubbed: none here.
    const saved = Object.entries(process.env).filter(([name]) => isSecretName(name));
    for (const [name] of saved) delete process.env[name];
    onTestFinished(() => {
      Object.assign(process.env, Object.fromEntries(saved));
    });
    const entry = findSuite('tool-server')!;
    const target = entry.targetFromOptions({
      http: 'http://127.0.0.1:8000/mcp?tenant=acme',
      start: 'node s.js',
    });
    expect(shownTargetArgs(entry.suite, target)).toEqual([
      '--http',
      'http://127.0.0.1:8000/mcp?tenant=acme',
      '--start',
      'node s.js',
    ]);
    expect(entry.suite.scrubber?.(target)).toBeUndefined();
  });
});

// Values shorter than 8 characters are not scrubbed from free text (they would hit ordinary
// words), so a message that names the target must quote it redacted, as reports show it.
const SHORT_SECRETS = ['tk42x', 'pw7'];
const UNSTARTABLE = `API_TOKEN=${SHORT_SECRETS[0]} wirecheck-no-such-command-4711 --password ${SHORT_SECRETS[1]}`;

test.each([
  ['runner', { runner: UNSTARTABLE }],
  ['agent', { agent: UNSTARTABLE }],
  ['messages-client', { client: UNSTARTABLE }],
  ['tool-client', { client: UNSTARTABLE }],
])(
  '%s: a command that cannot be started is named redacted in the unavailable message, short credentials included',
  async (name, options) => {
    const entry = findSuite(name)!;
    const error = await runSuite(entry.suite, entry.targetFromOptions(options), { seed: 1, runs: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toContain('wirecheck-no-such-command-4711');
    expect(message).toContain('API_TOKEN=[redacted]');
    for (const secret of SHORT_SECRETS) expect(message).not.toContain(secret);
  },
  60_000,
);

test('a credential cut in two where the harness bounds a result text leaves no part of it in the result', async () => {
  const secret = 'sk-live-0123456789abcdefghijklmnopqrstuv';
  const client = `API_KEY=${secret} ./client`;
  const suite: Suite<string, { close(): Promise<void> }> = {
    name: 'demo',
    description: 'a suite whose target echoes its key after a long body',
    describeTarget: (t) => t,
    targetArgs: (t) => ['--client', t],
    scrubber: (t) => targetScrubber({ commands: [t] }),
    open: async () => ({ close: async () => {} }),
    checks: [
      {
        id: 'demo.echo',
        clause: 'c',
        description: 'd',
        level: 'must',
        basis: 'spec',
        rule: 'r',
        run: async () => {
          // The message is kept to 4,096 characters: the cut falls inside the key.
          throw new CheckFailure(`${'x'.repeat(4096 - 30)}${secret} rest`);
        },
      },
    ],
  };
  const result = await runSuite(suite, client, { seed: 1 });
  const message = result.checks[0]!.message!;
  expect(message).toContain('[redacted]');
  expect(message).not.toContain(secret.slice(0, MIN_FRAGMENT));
});

test.each([
  ['runner', { runner: UNSTARTABLE }],
  ['agent', { agent: UNSTARTABLE }],
  ['messages-client', { client: UNSTARTABLE }],
  ['tool-client', { client: UNSTARTABLE }],
])('%s: processes.none-left names the command redacted, short credentials included', async (name, target) => {
  const entry = findSuite(name)!;
  const check = entry.suite.checks.find((c) => c.id === `${name}.processes.none-left`)!;
  const leftovers = new LeftoverLedger();
  leftovers.record('case one', [{ pid: 4242, command: 'sleep 300' }]);
  const error = await check
    .run({ target, leftovers } as never, { signal: new AbortController().signal } as never)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const message = (error as Error).message;
  expect(message).toContain('API_TOKEN=[redacted]');
  for (const secret of SHORT_SECRETS) expect(message).not.toContain(secret);
});

describe('the credentials of the environment the target inherits reach no report', () => {
  const TOKEN_VALUE = 'ghp_SECRETSECRET1234567890';
  const ENV_KEY = 'sk-proj-ENVSECRET987654321';

  test('a variable the command refers to where a credential goes, whatever its name', () => {
    const env = { T: TOKEN_VALUE };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${T} is what the user writes, expanded by the shell
    const commands = ['s --token "$T"', "s --token '${T}'", 'API_KEY=$T s', 's --auth "Bearer ${T}"'];
    for (const command of commands) {
      expect(targetScrubber({ commands: [command] }, [], env)?.(`bad ${TOKEN_VALUE}`)).toBe('bad [redacted]');
    }
    // Set in the command itself, it is the value the command refers to.
    const own = targetScrubber({ commands: [`T=${TOKEN_VALUE} s --token "$T"`] }, [], {});
    expect(own?.(`bad ${TOKEN_VALUE}`)).toBe('bad [redacted]');
    // Named where no credential goes, a variable of another name is no secret.
    expect(targetScrubber({ commands: ['s --dir "$T"'] }, [], env)).toBeUndefined();
  });

  test('every credential-named variable, referred to or not', () => {
    const env = {
      MCP_TOKEN: TOKEN_VALUE,
      OPENAI_API_KEY: ENV_KEY,
      HOME: '/home/user',
      PATH_TO_X: 'sk-not-a-cred',
    };
    const scrub = targetScrubber({ commands: ['node server.js'] }, [], env)!;
    expect(scrub(`token ${TOKEN_VALUE}, key ${ENV_KEY}, sk-not-a-cred, /home/user`)).toBe(
      'token [redacted], key [redacted], sk-not-a-cred, /home/user',
    );
  });

  test('settings and paths of credential-named variables, and short values, are left in the text', () => {
    const env = {
      AUTH_MODE: 'disabled',
      OAUTH_GRANT_TYPE: 'client_credentials',
      API_KEY_HEADER: 'x-api-key',
      SSH_AUTH_SOCK: '/tmp/ssh-XXXXabc123/agent.1234',
      API_TOKEN: 'short7',
      TOKEN_URL: 'https://auth.example.com/oauth/token?audience=mcp',
    };
    const text =
      'disabled client_credentials x-api-key /tmp/ssh-XXXXabc123/agent.1234 short7 https://auth.example.com/oauth/token?audience=mcp';
    const scrub = targetScrubber({ commands: ['node server.js'] }, [], env);
    expect(scrub === undefined ? text : scrub(text)).toBe(text);
    // A URL's own credentials are.
    const withKey = targetScrubber({ commands: ['node server.js'] }, [], {
      TOKEN_URL: 'https://auth.example.com/token?api_key=k3y-0123456789',
    });
    expect(withKey?.('refused k3y-0123456789')).toBe('refused [redacted]');
  });

  test('settings and paths the command refers to where a credential goes are left in the text too', () => {
    const env = { AUTH_MODE: 'disabled', TOKEN_FILE: '/run/secrets/token', T: TOKEN_VALUE };
    const text = 'auth is disabled; token at /run/secrets/token';
    for (const command of [
      'server --auth-mode "$AUTH_MODE" --token-file $TOKEN_FILE',
      'server --token $AUTH_MODE',
    ]) {
      const scrub = targetScrubber({ commands: [command] }, [], env);
      expect(scrub === undefined ? text : scrub(text), command).toBe(text);
    }
    // A secret of the environment is still one, and a value the command writes is taken as given.
    const scrub = targetScrubber({ commands: ['X=plainwords server --token "$T" --key "$X"'] }, [], env);
    expect(scrub?.(`bad ${TOKEN_VALUE}; plainwords`)).toBe('bad [redacted]; [redacted]');
  });

  test('a server that prints them when it fails: stdout, stderr and every report file never hold them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-env-secrets-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const root = resolve(import.meta.dirname, '../..');
    const server = join(root, 'test/suites/targets/prints-its-secrets.mjs');
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'bin/wirecheck.js'),
        'test',
        'tool-server',
        '--stdio',
        `node ${server} --token "$MCP_TOKEN"`,
        '--report-dir',
        dir,
        '--seed',
        '1',
      ],
      {
        cwd: root,
        env: { ...process.env, MCP_TOKEN: TOKEN_VALUE, OPENAI_API_KEY: ENV_KEY, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('auth failed: token [redacted] was refused; OPENAI_API_KEY=[redacted]');
    const files = await readdir(dir, { recursive: true });
    expect(files).toEqual(expect.arrayContaining(['results.json', 'junit.xml', 'report.html']));
    const texts = [run.stdout, run.stderr];
    for (const file of files) {
      if (/\.(json|xml|html)$/.test(file)) texts.push(await readFile(join(dir, file), 'utf8'));
    }
    for (const text of texts) {
      expect(text).not.toContain(TOKEN_VALUE);
      expect(text).not.toContain(ENV_KEY);
    }
  }, 90_000);
});
