import { TargetGone } from '../../harness/check.js';
import { METHODS } from '../../protocol/mcp/index.js';
import type { Channel } from './channel.js';
import type { Exchange } from './rpc.js';

/**
 * Requests in a row, on any session of the run, that may go unanswered within their budget
 * before the server counts as gone. A server that answers initialize and then nothing (or
 * only replies the harness cannot read) would otherwise cost every check its full budget and
 * be reported as one failure per check.
 */
export const UNANSWERED_IN_A_ROW = 3;

/**
 * Counts the requests of one suite run left unanswered in a row; any reply resets it, a reply
 * that landed on another session too (a server that misroutes is talking, and the routing
 * checks judge it).
 */
export class SilenceWatch {
  private readonly unanswered: string[] = [];
  /** Where the replies of those requests went instead of the stream, when one came elsewhere. */
  private misplaced: string | undefined;
  /** The open sessions of the run: a reply to one's request that lands on another is not silence. */
  private readonly channels = new Set<Channel>();
  constructor(private readonly limit: number = UNANSWERED_IN_A_ROW) {}

  watch(channel: Channel): void {
    this.channels.add(channel);
  }

  /** A closed session is forgotten, so a long run does not hold every session it opened. */
  unwatch(channel: Channel): void {
    this.channels.delete(channel);
  }

  /** Whether the reply to request `id` arrived on another session (request ids are unique in a run). */
  private answeredElsewhere(channel: Channel, id: number | string): boolean {
    for (const c of this.channels) if (c !== channel && c.peer.hasReply(id)) return true;
    return false;
  }

  /**
   * Note what one request got. initialize neither counts nor resets (a silent server still
   * answers it on every new process); a session that ended is not silence (the check says
   * why). Throws TargetGone at the limit.
   */
  note(channel: Channel, method: string, ex: Exchange<number | string>): void {
    if (method === METHODS.initialize) return;
    if (ex.reply !== undefined || this.answeredElsewhere(channel, ex.id)) {
      this.excuse();
      return;
    }
    if (channel.gone() !== undefined) return;
    this.unanswered.push(method);
    this.misplaced ??= ex.misplaced;
    if (this.unanswered.length < this.limit) return;
    // A server answering in the wrong place is talking: say where its replies went.
    const where =
      this.misplaced === undefined
        ? ''
        : `; its replies came ${this.misplaced}, not on the stream as event message as the spec sends them (tool-server.sse.reply-on-stream)`;
    const cause = `the server left ${this.unanswered.length} requests in a row unanswered (${this.unanswered.join(', ')}): ${channel.diagnosis().summary}${where}`;
    this.excuse();
    throw new TargetGone(cause, 'a JSON-RPC reply with the request id', 'nothing', undefined, {
      sharedCause: cause,
    });
  }

  /** Forget the requests left unanswered so far (see excuseSilence). */
  excuse(): void {
    this.unanswered.length = 0;
    this.misplaced = undefined;
  }
}

const watches = new WeakMap<Channel, SilenceWatch>();

/** Count the requests of `channel` in `watch` (the suite's context does so for every session it opens). */
export function watchSilence(channel: Channel, watch: SilenceWatch): void {
  watches.set(channel, watch);
  watch.watch(channel);
}

/**
 * A check has judged the silence on `channel` itself: a session busy with a long call (its
 * process alive, its stream open) is not a server that stopped answering, and its unanswered
 * requests must not make the next check's first slow reply the one that counts it gone.
 */
export function excuseSilence(channel: Channel): void {
  watches.get(channel)?.excuse();
}

/** Note an exchange on a channel watched for silence (no-op on one that is not). */
export function noteExchange(channel: Channel, method: string, ex: Exchange<number | string>): void {
  watches.get(channel)?.note(channel, method, ex);
}
