import { join } from 'node:path';
import { writeFixtureFile } from '../../fixtures/format.js';
import type { ToolSession } from '../../fixtures/schema.js';

/** Where recorded sessions go. */
export interface SessionSink {
  /** Write each session there as `<time>-tools-<counter>.json` (created if missing). */
  readonly outDir?: string;
  /** Called once per session, after its file (if any) is written. */
  readonly onSession?: (session: ToolSession, file: string | undefined) => void;
  /** Called when a file cannot be written. */
  readonly onWriteError?: (error: Error, file: string) => void;
}

let counter = 0;

/** Write one session as a fixture file (if asked) and tell the sink; resolves with the file. */
export async function storeSession(session: ToolSession, sink: SessionSink): Promise<string | undefined> {
  let file: string | undefined;
  if (sink.outDir !== undefined) {
    const stamp = (session.recordedAt ?? new Date().toISOString()).replace(/[:.]/g, '-');
    const n = String(++counter).padStart(4, '0');
    file = join(sink.outDir, `${stamp}-${session.transport}-${process.pid}-${n}.json`);
    try {
      await writeFixtureFile(file, session);
    } catch (e) {
      sink.onWriteError?.(e as Error, file);
      file = undefined;
    }
  }
  sink.onSession?.(session, file);
  return file;
}
