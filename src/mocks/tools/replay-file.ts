import { FixtureFormatError } from '../../fixtures/errors.js';
import { readFixtureFile } from '../../fixtures/format.js';
import type { ToolSession } from '../../fixtures/schema.js';

/** Read a recorded tool session to replay; throws FixtureFormatError naming the file and the problem. */
export async function loadToolReplay(file: string): Promise<ToolSession> {
  const fixture = await readFixtureFile(file);
  if (fixture.kind !== 'tool-session') {
    throw new FixtureFormatError(
      file,
      'kind',
      `a tool-server replay needs a tool-session fixture, not ${fixture.kind}`,
    );
  }
  return fixture;
}

/** `--speed`: a positive number, or `max` (0: as fast as possible). */
export function parseReplaySpeed(text: string): number | undefined {
  if (text === 'max') return 0;
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}
