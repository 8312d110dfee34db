import { createLineDecoder } from '../../protocol/jsonrpc/index.js';
import type { Channel, PostOutcome } from './channel.js';
import { RpcPeer } from './peer.js';
import { describeExit, type ServerProcess, spawnServer } from './process.js';

/** A stdio session: the process, and every stdout line it printed (JSON-RPC or not). */
export interface StdioChannel extends Channel {
  readonly transport: 'stdio';
  readonly process: ServerProcess;
  /** Close stdin (the end of the session for a stdio server) and wait up to `ms` for the exit. */
  endInput(ms: number): Promise<boolean>;
}

/** Spawn CMD and speak newline-delimited JSON-RPC on its stdin/stdout (spec "Tool server, stdio transport"). */
export function openStdioChannel(command: string, label: string): StdioChannel {
  const proc = spawnServer(command);
  const peer: RpcPeer = new RpcPeer(label, (message) => {
    void send(JSON.stringify(message));
  });
  const decoder = createLineDecoder({
    onLine(line) {
      if (line.ok) peer.receive(line.line, line.value, true);
      else peer.receive(line.line, undefined, false);
    },
  });
  proc.child.stdout.on('data', (chunk: Buffer) => decoder.feed(chunk));
  proc.child.stdout.on('end', () => decoder.end());
  const send = async (text: string): Promise<PostOutcome | undefined> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    peer.recordSent(text, value);
    if (proc.exit() !== undefined || !proc.child.stdin.writable) return undefined;
    await new Promise<void>((resolve) => proc.child.stdin.write(`${text}\n`, () => resolve()));
    return undefined;
  };
  return {
    transport: 'stdio',
    peer,
    process: proc,
    sendText: send,
    gone: () => (proc.exit() === undefined ? undefined : `the server process ${describeExit(proc)}`),
    close: () => proc.kill(),
    async endInput(ms) {
      proc.child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([proc.exited, new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
      return proc.exit() !== undefined;
    },
  };
}
