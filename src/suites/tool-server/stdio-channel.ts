import { waitAtMost } from '../../harness/wait-at-most.js';
import { createLineDecoder, DEFAULT_MAX_LINE_BYTES } from '../../protocol/jsonrpc/index.js';
import type { Channel, PostOutcome } from './channel.js';
import { STDIO_WORDS } from './diagnosis.js';
import { RpcPeer } from './peer.js';
import { describeExit, type ServerProcess, spawnServer } from './process.js';

/** A stdio session: the process, and every stdout line it printed (JSON-RPC or not). */
export interface StdioChannel extends Channel {
  readonly transport: 'stdio';
  readonly process: ServerProcess;
  /** Close stdin (the end of the session for a stdio server) and wait up to `ms` for the exit. */
  endInput(ms: number): Promise<boolean>;
}

export interface StdioReadLimits {
  /** Longest stdout line read (default 16 MiB, DEFAULT_MAX_LINE_BYTES). */
  readonly maxLineBytes?: number;
  /** Deepest JSON nesting parsed (default 512). */
  readonly maxDepth?: number;
  /** Bytes written to stdin that the server may leave unread (default MAX_UNREAD_INPUT_BYTES). */
  readonly maxUnreadInputBytes?: number;
}

/** What the harness holds of its own input to a server that does not read it; past it the session ends. */
export const MAX_UNREAD_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * Bytes read of a long stdout line whose start shows it is not JSON: enough for the peer's
 * preview, and a server flooding such lines costs the harness counts, not strings.
 */
const UNREADABLE_HEAD_BYTES = 1000;

/**
 * Spawn CMD and speak newline-delimited JSON-RPC on its stdin/stdout (spec "Tool server,
 * stdio transport"). Every stdout line goes to the peer, which classifies it (JSON-RPC, not
 * JSON, too deep, not JSON-RPC, an echo of the harness's own line). A line longer than
 * maxLineBytes is a protocol failure that ends the session: the harness stops reading and
 * stops the process, and `gone()` names the limit, what arrived and where.
 */
export function openStdioChannel(
  command: string,
  label: string,
  limits: StdioReadLimits = {},
  /** A process of `command` started already and never written to (a spare), else one is spawned. */
  started?: ServerProcess,
): StdioChannel {
  const maxLineBytes = limits.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxUnreadInputBytes = limits.maxUnreadInputBytes ?? MAX_UNREAD_INPUT_BYTES;
  const proc = started ?? spawnServer(command);
  const peer: RpcPeer = new RpcPeer(
    label,
    (message) => {
      void send(JSON.stringify(message));
    },
    STDIO_WORDS,
  );
  let stopped: string | undefined;
  const onData = (chunk: Buffer) => {
    peer.wire.bytesIn(chunk);
    decoder.feed(chunk);
  };
  const decoder = createLineDecoder({
    maxLineBytes,
    unreadableHeadBytes: UNREADABLE_HEAD_BYTES,
    ...(limits.maxDepth === undefined ? {} : { maxDepth: limits.maxDepth }),
    onLine(line) {
      if (line.ok) {
        peer.receive(line.line, line.value, true);
        return;
      }
      if (line.reason === 'too-long') {
        const detail = `line ${line.lineNumber} of stdout is longer than the ${maxLineBytes}-byte limit (maxLineBytes): ${line.bytes} bytes and no newline yet, starting ${JSON.stringify(line.line.slice(0, 120))}`;
        peer.wire.fatal('over-limit', line.line, detail);
        stopped = `wirecheck stopped reading and ended the session: ${detail}`;
        proc.child.stdout.off('data', onData);
        void proc.kill();
        return;
      }
      peer.receive(line.cut ? `${line.line}... (${line.bytes} bytes)` : line.line, undefined, false, {
        kind: line.reason === 'too-deep' ? 'too-deep' : 'not-json',
        detail: line.error,
      });
    },
  });
  proc.child.stdout.on('data', onData);
  proc.child.stdout.on('end', () => decoder.end());
  const send = async (text: string): Promise<PostOutcome | undefined> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    peer.recordSent(text, value);
    if (stopped !== undefined || proc.exit() !== undefined || !proc.child.stdin.writable) return undefined;
    // Not awaited: a server that stops reading its stdin would hold the exchange past its reply
    // budget. What it leaves unread is bounded instead.
    const unread = proc.child.stdin.writableLength;
    if (unread + text.length > maxUnreadInputBytes) {
      stopped = `wirecheck ended the session: the server left ${unread} bytes of its input unread (past the ${maxUnreadInputBytes}-byte limit, MAX_UNREAD_INPUT_BYTES), so it no longer reads its stdin`;
      proc.child.stdout.off('data', onData);
      void proc.kill();
      return undefined;
    }
    proc.child.stdin.write(`${text}\n`);
    return undefined;
  };
  return {
    transport: 'stdio',
    peer,
    process: proc,
    sendText: send,
    gone: () =>
      stopped ?? (proc.exit() === undefined ? undefined : `the server process ${describeExit(proc)}`),
    diagnosis: () => peer.wire.diagnosis(),
    close: async () => {
      await proc.kill();
      peer.keptText.release();
    },
    async endInput(ms) {
      proc.child.stdin.end();
      await waitAtMost(proc.exited, ms);
      return proc.exit() !== undefined;
    },
  };
}
