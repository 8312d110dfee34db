import { Transform } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { RpcMessage } from '../../src/fuzz/mutations/jsonrpc.js';
import { runSurface } from '../../src/fuzz/run-surface.js';
import { type StdioCase, toolServerStdioSurface } from '../../src/fuzz/surfaces/tool-server-stdio.js';
import { findSurface } from '../../src/fuzz/surfaces.js';
import { serveToolsOverStdio } from '../../src/servers/tools/index.js';

const RUN = { seed: 424242, runs: 150, caseTimeoutMs: 5_000 };

function passed(result: Awaited<ReturnType<typeof runSurface>>): void {
  if (result.status === 'failed') {
    throw new Error(
      `${result.error}\ncounterexample: ${result.counterexample}\nseed ${result.seed} path ${result.path}`,
    );
  }
}

const message = (what: string, text: string): RpcMessage => ({ what, body: Buffer.from(text), slow: false });
const oneCase = (...messages: RpcMessage[]): StdioCase => ({
  messages,
  ends: messages.map(() => '\n'),
  feed: { how: 'whole' },
});

/** A server whose stdout passes through `rewrite`, a chunk at a time. */
function rewriting(rewrite: (text: string) => string): typeof serveToolsOverStdio {
  return (options) => {
    const filter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        done(null, rewrite(chunk.toString('utf8')));
      },
    });
    filter.pipe(options.output);
    return serveToolsOverStdio({ ...options, output: filter });
  };
}

/** A server whose stdout loses every line matching `drop`. */
const losing = (drop: RegExp) =>
  rewriting((text) =>
    text
      .split(/(?<=\n)/)
      .filter((line) => !drop.test(line))
      .join(''),
  );

async function violation(serve: typeof serveToolsOverStdio, c: StdioCase): Promise<string> {
  const target = await toolServerStdioSurface({ serve }).open();
  try {
    await target.check(c);
    return 'no violation';
  } catch (e) {
    return String(e);
  } finally {
    await target.close?.();
  }
}

describe('tool-server-stdio fuzz surface', () => {
  test('the reference server answers every line as the rules say, over 150 cases', async () => {
    const surface = findSurface('tool-server-stdio');
    expect(surface).toBeDefined();
    const result = await runSurface(surface!, RUN);
    passed(result);
    expect(result).toMatchObject({ surface: 'tool-server-stdio', status: 'passed', cases: 150 });
  }, 60_000);

  test('the reference server passes a hand-made case of every kind', async () => {
    const c = oneCase(
      message('not JSON', '{"jsonrpc":'),
      message('an unknown method', '{"jsonrpc":"2.0","id":1,"method":"nope"}'),
      message('a batch', '[{"jsonrpc":"2.0","id":2,"method":"ping"},[],{"jsonrpc":"2.0","method":"n"}]'),
      message('a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}'),
      message(
        'a slow call',
        '{"jsonrpc":"2.0","id":"slow#0","method":"tools/call","params":{"name":"slow","arguments":{"ms":2}}}',
      ),
    );
    c.messages[4] = { ...(c.messages[4] as RpcMessage), slow: true };
    expect(await violation(serveToolsOverStdio, c)).toBe('no violation');
  });

  test('lone surrogates, escaped, come back as sent; a server that writes U+FFFD in their place fails', async () => {
    const c = oneCase(
      message('a lone high surrogate in the id', '{"jsonrpc":"2.0","id":"id-\\ud800","method":"ping"}'),
      message(
        'a lone low surrogate in the id and the text to echo',
        '{"jsonrpc":"2.0","id":"id-\\udfff","method":"tools/call","params":{"name":"echo","arguments":{"text":"a\\udc00b"}}}',
      ),
    );
    expect(await violation(serveToolsOverStdio, c)).toBe('no violation');
    // What a server that writes its replies' strings out as UTF-8 text would send.
    const lossy = rewriting((text) => text.replace(/\\ud[89a-f][0-9a-f]{2}/g, '\ufffd'));
    const v = await violation(lossy, c);
    expect(v).toMatch(/FuzzViolation: a reply no line asked for: \{"jsonrpc":"2.0","id":"id-\ufffd"/);
    expect(v).toMatch(/expected a result id "id-\\ud800" \(ping: an empty result\)/);
  });

  test('a server that drops its -32700 replies fails, naming the line', async () => {
    const v = await violation(losing(/-32700/), oneCase(message('not JSON', '{"jsonrpc":')));
    expect(v).toMatch(
      /FuzzViolation: no reply within 2000 ms: line 0 "\{\\"jsonrpc\\":" expected error -32700 id null/,
    );
  });

  test('a server that answers a notification with an extra line fails', async () => {
    const chatty: typeof serveToolsOverStdio = async (options) => {
      const server = await serveToolsOverStdio(options);
      options.input.on('data', (chunk: Buffer) => {
        if (chunk.includes('notifications/initialized'))
          options.output.write('{"jsonrpc":"2.0","id":null,"result":{}}\n');
      });
      return server;
    };
    const v = await violation(
      chatty,
      oneCase(message('a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}')),
    );
    expect(v).toMatch(/a reply no line asked for: \{"jsonrpc":"2.0","id":null,"result":\{\}\}/);
  });

  test('a server that writes a log line on stdout fails', async () => {
    const noisy: typeof serveToolsOverStdio = (options) =>
      serveToolsOverStdio({ ...options, log: (line) => options.output.write(`${line}\n`) });
    const v = await violation(noisy, oneCase(message('not JSON', 'x')));
    expect(v).toMatch(/a line on stdout that is not JSON/);
  });
});
