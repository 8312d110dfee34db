import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { portForServerStart } from '../../../src/harness/server-port.js';
import { scriptedModel, startMockMessagesService } from '../../../src/mocks/messages/index.js';
import type { GivenHeader } from '../../../src/protocol/header-option.js';

export interface PortkeyInFront {
  readonly baseUrl: string;
  /** The gateway's routing headers, as `--header` gives them. */
  readonly headers: readonly GivenHeader[];
  close(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('./servers/portkey.mjs', import.meta.url));
const READY_WITHIN_MS = 20_000;
const POLL_MS = 100;

/**
 * Portkey's AI gateway in front of wirecheck's reference messages service (the mock playing a
 * model that uses bash, `apiKey` required), as a user points the gateway at a provider: the
 * provider `anthropic` at a custom host, by the gateway's own request headers.
 */
export async function startPortkeyInFront(apiKey: string): Promise<PortkeyInFront> {
  const service = await startMockMessagesService({ scenario: scriptedModel('bash'), apiKey });
  const port = await portForServerStart();
  const gateway = spawn(process.execPath, [SERVER, `--port=${port}`], { stdio: 'ignore' });
  const close = async () => {
    await stop(gateway);
    await service.close();
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await answering(baseUrl, gateway);
  } catch (error) {
    await close();
    throw error;
  }
  const header = (name: string, value: string): GivenHeader => ({ name, value, given: value });
  return {
    baseUrl,
    headers: [
      header('x-portkey-provider', 'anthropic'),
      header('x-portkey-custom-host', `${service.url}/v1`),
    ],
    close,
  };
}

async function answering(baseUrl: string, gateway: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (let i = 0; Date.now() < deadline && i < READY_WITHIN_MS / POLL_MS; i++) {
    if (gateway.exitCode !== null)
      throw new Error(`the gateway exited (${gateway.exitCode}) before it answered`);
    try {
      await (await fetch(baseUrl, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  throw new Error(`the gateway did not answer at ${baseUrl} within ${READY_WITHIN_MS} ms`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
  await exited;
  clearTimeout(timer);
}
