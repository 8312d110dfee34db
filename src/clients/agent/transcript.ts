import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { AgentEvent } from './events.js';

/** One line of the transcript: an event of the loop, stamped with the time it happened. */
export const TranscriptRecord = z.intersection(z.object({ at: z.iso.datetime() }), AgentEvent);
export type TranscriptRecord = z.infer<typeof TranscriptRecord>;

/** A record as its JSON line (with the newline). */
export function transcriptLine(event: AgentEvent, at: Date): string {
  return `${JSON.stringify({ at: at.toISOString(), ...event })}\n`;
}

/** The records of a transcript file's text; throws naming the line that is not a record. */
export function parseTranscript(text: string): TranscriptRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      const parsed = TranscriptRecord.safeParse(JSON.parse(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new TypeError(
          `transcript line ${i + 1}: ${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message}`,
        );
      }
      return parsed.data;
    });
}

/**
 * Writes the transcript as JSON Lines, one record per event, each written through at once
 * (synchronously), so a transcript is complete up to the moment an agent is killed.
 */
export class TranscriptWriter {
  private fd: number | undefined;

  /** Creates (or truncates) `path`, making its folder when absent. */
  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
  }

  write(event: AgentEvent): void {
    if (this.fd === undefined) throw new Error(`transcript ${this.path} is closed`);
    writeSync(this.fd, transcriptLine(event, this.now()));
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
