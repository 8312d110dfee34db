import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/harness/run-suite.js';
import { portForServerStart } from '../../src/harness/server-port.js';
import type { AgentTarget } from '../../src/suites/agent/target.js';
import type { MessagesClientTarget } from '../../src/suites/messages-client/target.js';
import type { MessagesServiceTarget } from '../../src/suites/messages-service/target.js';
import type { RunnerTarget } from '../../src/suites/runner/target.js';
import { TOOL_TRANSPORTS, type ToolClientTarget } from '../../src/suites/tool-client/index.js';
import type { ToolServerTarget } from '../../src/suites/tool-server/index.js';
import { startAimock } from '../suites/messages-service/aimock.js';
import { startPortkeyInFront } from '../suites/messages-service/portkey.js';
import type { TabledSuite } from './tables.js';

// The third-party implementations of docs/*-compatibility.md, one per column: the interop
// tests run them with the tests' seeds, the verdict sweep (npm run sweep) with the quick
// tier's own runs over several seeds.

/** A target ready for one suite run; close() ends what started it (a service, a folder). */
export interface StartedTarget<T> {
  readonly target: T;
  /** A folder the target works in, removed by close(). */
  readonly dir?: string;
  close(): Promise<void>;
}

/** Column of the compatibility table -> how to start that target for one run. */
export type ThirdPartyTargets<T> = Readonly<Record<string, () => Promise<StartedTarget<T>>>>;

const NODE = shellQuote(process.execPath);
const node = (path: string) => `${NODE} ${shellQuote(fileURLToPath(new URL(path, import.meta.url)))}`;
const bin = (path: string) => node(`../../node_modules/${path}`);
const testServer = (name: string) => node(`../suites/tool-server/servers/${name}.mjs`);
const nothingToClose = async () => {};

function fixed<T>(target: T): () => Promise<StartedTarget<T>> {
  return async () => ({ target, close: nothingToClose });
}

export const MESSAGES_CLIENTS: ThirdPartyTargets<MessagesClientTarget> = {
  '@anthropic-ai/sdk 1.12.0': fixed({ client: node('../../examples/anthropic-sdk-client.mjs') }),
  'ai 7.0.173 + @ai-sdk/anthropic 4.0.105': fixed({
    client: node('../../examples/ai-sdk-anthropic-client.mjs'),
  }),
  '@langchain/anthropic 1.5.11': fixed({ client: node('../../examples/langchain-anthropic-client.mjs') }),
  '@effect/ai-anthropic 0.27.0': fixed({ client: node('../../examples/effect-anthropic-client.mjs') }),
};

export const RUNNERS: ThirdPartyTargets<RunnerTarget> = {
  'SDK betaBashTool': fixed({ runner: node('../../examples/anthropic-sdk-bash-runner.mjs') }),
};

export const AGENTS: ThirdPartyTargets<AgentTarget> = {
  'SDK toolRunner (adapter)': fixed({ agent: node('../../examples/anthropic-sdk-agent.mjs') }),
  'SDK toolRunner (defaults)': fixed({
    agent: node('../suites/agent/third-party/sdk-tool-runner-defaults.mjs'),
  }),
  'ai 7.0.173 generateText (adapter)': fixed({ agent: node('../../examples/ai-sdk-agent.mjs') }),
  'langchain 1.5.14 createAgent (adapter)': fixed({ agent: node('../../examples/langchain-agent.mjs') }),
  '@tanstack/ai 0.58.0 chat (adapter)': fixed({ agent: node('../../examples/tanstack-ai-agent.mjs') }),
};

/** The environment variable the aimock target's key is read from (the suite takes a variable, not a key). */
export const AIMOCK_KEY_ENV = 'WIRECHECK_TEST_AIMOCK_KEY';
const AIMOCK_KEY = 'wc-test-key-aimock';
const PORTKEY_KEY_ENV = 'WIRECHECK_TEST_PORTKEY_KEY';
const PORTKEY_KEY = 'wc-test-key-portkey';

export const MESSAGES_SERVICES: ThirdPartyTargets<MessagesServiceTarget> = {
  '@copilotkit/aimock 1.43.0': async () => {
    process.env[AIMOCK_KEY_ENV] = AIMOCK_KEY;
    const aimock = await startAimock(AIMOCK_KEY);
    return {
      target: { baseUrl: aimock.baseUrl, apiKeyEnv: AIMOCK_KEY_ENV },
      close: async () => {
        await aimock.close();
        delete process.env[AIMOCK_KEY_ENV];
      },
    };
  },
  '@portkey-ai/gateway 1.15.2 (in front of the reference)': async () => {
    process.env[PORTKEY_KEY_ENV] = PORTKEY_KEY;
    const gateway = await startPortkeyInFront(PORTKEY_KEY);
    return {
      target: { baseUrl: gateway.baseUrl, apiKeyEnv: PORTKEY_KEY_ENV, headers: gateway.headers },
      close: async () => {
        await gateway.close();
        delete process.env[PORTKEY_KEY_ENV];
      },
    };
  },
};

const toolClient = (file: string) =>
  fixed<ToolClientTarget>({
    client: node(`../suites/tool-client/clients/${file}`),
    transports: TOOL_TRANSPORTS,
  });

export const TOOL_CLIENTS: ThirdPartyTargets<ToolClientTarget> = {
  'official SDK': toolClient('mcp-sdk-client.mjs'),
  'official SDK v2': toolClient('mcp-sdk-v2-client.mjs'),
  '@ai-sdk/mcp': toolClient('ai-sdk-client.mjs'),
};

const EVERYTHING = bin('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = bin('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY = bin('@modelcontextprotocol/server-memory/dist/index.js');
const SUPERGATEWAY = bin('supergateway/dist/index.js');
const MCP_PROXY = bin('mcp-proxy/dist/bin/mcp-proxy.mjs');

/**
 * A tool server in a fresh folder (filesystem and memory servers work there; no check calls
 * a writing tool, so it stays empty), over stdio, or over SSE (`/sse`) or Streamable HTTP
 * (`/mcp`) on a port chosen for `--start`.
 */
function toolServer(
  over: 'stdio' | 'sse' | 'http',
  command: (dir: string, port: number) => string,
): () => Promise<StartedTarget<ToolServerTarget>> {
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-interop-'));
    const close = () => rm(dir, { recursive: true, force: true });
    if (over === 'stdio') return { target: { kind: 'stdio', command: command(dir, 0) }, dir, close };
    const port = await portForServerStart();
    const path = over === 'sse' ? '/sse' : '/mcp';
    return {
      target: { kind: over, url: `http://127.0.0.1:${port}${path}`, start: command(dir, port) },
      dir,
      close,
    };
  };
}

const memory = (dir: string) => `MEMORY_FILE_PATH=${shellQuote(join(dir, 'memory.jsonl'))} ${MEMORY}`;

export const TOOL_SERVERS: ThirdPartyTargets<ToolServerTarget> = {
  'SDK stdio': toolServer('stdio', () => `${testServer('sdk')} --transport stdio`),
  'SDK sse': toolServer('sse', (_, port) => `${testServer('sdk')} --transport sse --port ${port}`),
  'everything stdio': toolServer('stdio', () => `${EVERYTHING} stdio`),
  'everything sse': toolServer('sse', (_, port) => `PORT=${port} ${EVERYTHING} sse`),
  'filesystem stdio': toolServer('stdio', (dir) => `${FILESYSTEM} ${shellQuote(dir)}`),
  'memory stdio': toolServer('stdio', (dir) => memory(dir)),
  'supergateway sse': toolServer(
    'sse',
    (dir, port) => `${SUPERGATEWAY} --stdio ${shellQuote(memory(dir))} --port ${port}`,
  ),
  'mcp-proxy sse': toolServer(
    'sse',
    (dir, port) => `${MCP_PROXY} --port ${port} --server sse -- sh -c ${shellQuote(memory(dir))}`,
  ),
  'fastmcp sse': toolServer('sse', (_, port) => `${testServer('fastmcp')} --port ${port}`),
  'SDK v2 stdio': toolServer('stdio', () => testServer('sdk-v2')),
  'tmcp stdio': toolServer('stdio', () => testServer('tmcp')),
  'tmcp sse': toolServer('sse', (_, port) => `${testServer('tmcp')} --sse --port ${port}`),
  'effect stdio': toolServer('stdio', () => testServer('effect-mcp')),
};

/** The same over Streamable HTTP (`--http`), the suite offering 2025-03-26 in `initialize`. */
export const TOOL_SERVERS_HTTP: ThirdPartyTargets<ToolServerTarget> = {
  'SDK http': toolServer('http', (_, port) => `${testServer('sdk-streamable')} --port ${port}`),
  'SDK http json': toolServer('http', (_, port) => `${testServer('sdk-streamable')} --port ${port} --json`),
  'SDK http event store': toolServer(
    'http',
    (_, port) => `${testServer('sdk-streamable')} --port ${port} --event-store`,
  ),
  'SDK http defaults': toolServer(
    'http',
    (_, port) => `${testServer('sdk-streamable')} --port ${port} --no-origin-check`,
  ),
  'everything http': toolServer('http', (_, port) => `PORT=${port} ${EVERYTHING} streamableHttp`),
  'mcp-proxy http': toolServer(
    'http',
    (dir, port) => `${MCP_PROXY} --port ${port} --server stream -- sh -c ${shellQuote(memory(dir))}`,
  ),
  'fastmcp http': toolServer('http', (_, port) => `${testServer('fastmcp')} --port ${port}`),
  'SDK v2 http': toolServer('http', (_, port) => `${testServer('sdk-v2')} --port ${port}`),
  'SDK v2 http sessions': toolServer(
    'http',
    (_, port) => `${testServer('sdk-v2')} --port ${port} --stateful`,
  ),
  'tmcp http': toolServer('http', (_, port) => `${testServer('tmcp')} --http --port ${port}`),
  'mcp-lite http': toolServer('http', (_, port) => `${testServer('mcp-lite')} --port ${port}`),
  'hono http': toolServer('http', (_, port) => `${testServer('hono-mcp')} --port ${port}`),
  'hono http sessions': toolServer(
    'http',
    (_, port) => `${testServer('hono-mcp')} --port ${port} --sessions`,
  ),
  'effect http': toolServer('http', (_, port) => `${testServer('effect-mcp')} --port ${port}`),
};

/** Every compatibility table's targets, one per column. */
export const THIRD_PARTY_TARGETS: Readonly<Record<TabledSuite, ThirdPartyTargets<unknown>>> = {
  agent: AGENTS,
  'messages-client': MESSAGES_CLIENTS,
  'messages-service': MESSAGES_SERVICES,
  runner: RUNNERS,
  'tool-client': TOOL_CLIENTS,
  'tool-server': TOOL_SERVERS,
  'tool-server-http': TOOL_SERVERS_HTTP,
};
