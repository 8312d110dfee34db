import type { JournalEntry } from '../mocks/messages/index.js';

/**
 * Why the messages mock's journal holds no whole request body for `entry`, or undefined when it
 * does. It keeps the first MiB of a longer body, as text (JournalEntry.bodyTruncated), and
 * withholds a body that presented more secrets than it scrubs (bodyWithheld): a client may
 * rightly send either, and nothing of what was not kept can be judged by any check.
 */
export function bodyNotKept(entry: JournalEntry): string | undefined {
  if (entry.bodyTruncated !== undefined) {
    return `the mock's journal kept only the start of its ${entry.bodyTruncated.bytes}-byte body`;
  }
  if (entry.bodyWithheld !== undefined) {
    return `the mock's journal withheld its ${entry.bodyWithheld.bytes}-byte body, which presented ${entry.bodyWithheld.secrets} secret values`;
  }
  return undefined;
}
