import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import type { RpcMessage } from '../../src/fuzz/mutations/jsonrpc.js';
import { runSurface } from '../../src/fuzz/run-surface.js';
import {
  type SseCase,
  type SseServer,
  type ToolServerSseOptions,
  toolServerSseSurface,
} from '../../src/fuzz/surfaces/tool-server-sse.js';
import { findSurface } from '../../src/fuzz/surfaces.js';
import { buildToolServer } from '../../src/servers/tools/index.js';

const RUN = { seed: 424242, runs: 100, caseTimeoutMs: 5_000 };

function passed(result: Awaited<ReturnType<typeof runSurface>>): void {
  if (result.status === 'failed') {
    throw new Error(
      `${result.error}\ncounterexample: ${result.counterexample}\nseed ${result.seed} path ${result.path}`,
    );
  }
}

const message = (what: string, text: string): RpcMessage => ({ what, body: Buffer.from(text), slow: false });
const post = (m: RpcMessage, over: Partial<SseCase> = {}): SseCase => ({
  message: m,
  target: 'query',
  session: 1,
  unknownId: 'nope',
  contentType: 'application/json',
  ...over,
});
const TOOLS_LIST = message('tools/list', '{"jsonrpc":"2.0","id":7,"method":"tools/list"}');

type Start = NonNullable<ToolServerSseOptions['start']>;

/** The reference app with a hook in front of its routes, listening. */
function startWith(hook: (app: ReturnType<typeof buildToolServer>, ids: string[]) => void): Start {
  return async ({ host, keepAliveMs }): Promise<SseServer> => {
    const built = buildToolServer({ keepAliveMs });
    const ids: string[] = [];
    // Learn the session ids from the endpoint events the streams send.
    built.app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET') return;
      const raw = reply.raw;
      const write = raw.write.bind(raw) as (chunk: unknown, ...rest: unknown[]) => boolean;
      raw.write = ((chunk: unknown, ...rest: unknown[]) => {
        const id = /sessionId=([0-9a-f-]{36})/.exec(String(chunk))?.[1];
        if (id !== undefined) ids.push(id);
        return write(chunk, ...rest);
      }) as typeof raw.write;
    });
    hook(built, ids);
    await built.app.listen({ host, port: 0 });
    const { port } = built.app.server.address() as AddressInfo;
    return {
      origin: `http://127.0.0.1:${port}`,
      sessionCount: built.sessionCount,
      inFlightCount: () => built.core.inFlightCount(),
      close: () => built.app.close(),
    };
  };
}

async function violation(start: Start | undefined, ...cases: SseCase[]): Promise<string> {
  const target = await toolServerSseSurface(start === undefined ? {} : { start }).open();
  try {
    for (const c of cases) await target.check(c);
    return 'no violation';
  } catch (e) {
    return String(e);
  } finally {
    await target.close?.();
  }
}

describe('tool-server-sse fuzz surface', () => {
  test('the reference server gives every POST its status and answer on the right stream, over 100 cases', async () => {
    const surface = findSurface('tool-server-sse');
    expect(surface).toBeDefined();
    const result = await runSurface(surface!, RUN);
    passed(result);
    expect(result).toMatchObject({ surface: 'tool-server-sse', status: 'passed', cases: 100 });
  }, 60_000);

  test('the reference server passes hand-made cases of every target', async () => {
    const targets: SseCase['target'][] = [
      'query',
      'header',
      'query and another header',
      'empty query, header',
      'none',
      'unknown',
      'closed',
      'opened for the case',
      'wrong path',
    ];
    expect(await violation(undefined, ...targets.map((target) => post(TOOLS_LIST, { target })))).toBe(
      'no violation',
    );
    expect(
      await violation(
        undefined,
        post(message('not JSON', '{')),
        post(TOOLS_LIST, { contentType: 'text/plain' }),
        post(message('a notification', '{"jsonrpc":"2.0","method":"n"}')),
      ),
    ).toBe('no violation');
  });

  test('a server that answers on the wrong session fails', async () => {
    const misrouting = startWith((built, ids) => {
      built.app.addHook('preHandler', async (request) => {
        const query = request.query as Record<string, string>;
        if (request.method !== 'POST' || !String(request.body).includes('tools/list')) return;
        const other = ids.find((id) => id !== query.sessionId);
        if (other !== undefined) query.sessionId = other;
      });
    });
    expect(await violation(misrouting, post(TOOLS_LIST))).toMatch(
      /FuzzViolation: a reply nothing asked for on another session \(nothing was POSTed for it\): \{"jsonrpc":"2.0","id":7,"result"/,
    );
  });

  test('a server that accepts a POST for an unknown session fails', async () => {
    const lenient = startWith((built, ids) => {
      built.app.addHook('preHandler', async (request, reply) => {
        const query = request.query as Record<string, string>;
        if (request.method === 'POST' && query.sessionId !== undefined && !ids.includes(query.sessionId)) {
          return reply.code(202).send('Accepted');
        }
      });
    });
    expect(await violation(lenient, post(TOOLS_LIST, { target: 'unknown' }))).toMatch(
      /expected HTTP 400 \(an unknown session: 400 \{"error"\}\), got 202/,
    );
  });
});
