import type { ToolJournal, ToolJournalEntry } from './journal.js';
import type { SessionChannel } from './session.js';

/**
 * Journal what a mock session sends on its channel: a JSON-RPC message (with its parsed
 * value), a non-JSON banner line, or the session's end. Both session kinds (scripted and
 * replayed) journal through this, so their entries read alike.
 */
export function journalSent(
  journal: ToolJournal,
  channel: Pick<SessionChannel, 'session' | 'transport'>,
  kind: Extract<ToolJournalEntry['kind'], 'message' | 'banner' | 'closed'>,
  text: string,
  value?: unknown,
): void {
  journal.record({
    session: channel.session,
    transport: channel.transport,
    direction: 'sent',
    kind,
    text,
    ...(value === undefined ? {} : { value }),
  });
}
