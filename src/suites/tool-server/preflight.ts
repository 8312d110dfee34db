import { classifyMessage } from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import type { Channel } from './channel.js';
import type { Exchange } from './rpc.js';

// What the suite tells the user when a server cannot be tested at all: what was run, what
// came back, and the first lines the server wrote on stderr. Pure over what a channel
// recorded, so it is tested without a server.

const SHOWN_LINES = 3;

/** The first lines of a stderr text, short. */
export function firstLines(text: string, lines = 8): string {
  const kept = text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, lines)
    .map((l) => (l.length > 200 ? `${l.slice(0, 200)}...` : l));
  return kept.join('\n');
}

/**
 * Why a session never got an initialize result, read from what it received: non-protocol
 * output, our own request echoed back, an error answer, or nothing at all.
 */
export function whyNoInitialize(channel: Channel, ex: Exchange, budgetMs: number): string {
  const received = channel.peer.items.filter((i) => i.direction === 'received');
  const notJson = received.filter((i) => i.kind === 'not-json' || i.kind === 'invalid');
  const echoed = received.find((i) => {
    if (i.kind !== 'request') return false;
    try {
      const c = classifyMessage(JSON.parse(i.text));
      return c.kind === 'request' && c.message.method === METHODS.initialize;
    } catch {
      return false;
    }
  });
  if (echoed !== undefined) {
    return `it sent our initialize request back unchanged (${quote(echoed.text)}): the command echoes its input instead of serving the protocol`;
  }
  if (notJson.length > 0 && ex.reply === undefined) {
    const shown = notJson
      .slice(0, SHOWN_LINES)
      .map((i) => quote(i.text))
      .join(', ');
    return `it wrote ${notJson.length} line(s) that are not JSON-RPC messages and no initialize result (first: ${shown}): is this a tool server speaking newline-delimited JSON-RPC?`;
  }
  if (ex.reply !== undefined && 'error' in ex.reply) {
    return `it answered initialize (protocolVersion 2024-11-05) with an error: ${quote(JSON.stringify(ex.reply))}; nothing else can be tested`;
  }
  if (ex.reply !== undefined) return `it answered initialize with ${quote(JSON.stringify(ex.reply))}`;
  const gone = channel.gone();
  if (gone !== undefined) return `${gone} before answering initialize`;
  const others = received.length === 0 ? 'nothing' : `${received.length} message(s) but not the reply`;
  return `it did not answer initialize within ${budgetMs} ms (received: ${others})`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}...` : text);
}
