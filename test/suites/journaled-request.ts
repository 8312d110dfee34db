import type { CommandRun } from '../../src/harness/run-command.js';
import { type Journal, type JournalEntry, journalEntry } from '../../src/mocks/messages/index.js';

/**
 * A POST to /v1/messages as `journal` records it, answered `status` with a completed reply, its
 * `body` kept as the journal keeps one (cut past its body limit).
 */
export function journaledPost(
  journal: Journal,
  body: object,
  fields: Partial<Pick<JournalEntry, 'seq' | 'stream' | 'status' | 'bodyError' | 'version'>> = {},
): JournalEntry {
  const seq = fields.seq ?? 0;
  const entry = journalEntry({
    seq,
    requestId: `req_${seq}`,
    method: 'POST',
    url: '/v1/messages',
    headers: {},
    receivedAt: 0,
    receivedAtMono: 0,
    auth: 'x-api-key',
    configuredKeyIn: ['x-api-key'],
    version: fields.version ?? null,
    stream: fields.stream ?? false,
    status: fields.status ?? 200,
    ...(fields.bodyError !== undefined && { bodyError: fields.bodyError }),
    framesWritten: 0,
    bytesWritten: 0,
    outcome: 'completed',
    clientAborted: false,
  });
  journal.record(entry);
  journal.setBody(entry, JSON.stringify(body), true);
  return entry;
}

/** A target command's run made up for a check's judgement: it exited `exitCode` at once, printing nothing. */
export function fakeCommandRun(exitCode = 0): CommandRun {
  return { exitCode, signal: null, timedOut: false, stdout: '', stderr: '', durationMs: 5 } as CommandRun;
}
