import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { thrownMessage } from '../../protocol/thrown.js';
import type { StreamEnd } from './execute-plan.js';
import type { JournalEntry } from './journal.js';

/**
 * A hijacked reply the mock failed on (a broken scenario, its own error; before the first
 * frame or after the headers): nothing answers the request but this. All that is left is to
 * cut the connection and to say why in the journal, since the suites tell the mock's failure
 * from the client's by `streamError`. `doing` is what the mock could not do.
 */
export function cutOnOwnFailure(
  request: FastifyRequest,
  res: ServerResponse,
  entry: JournalEntry,
  doing: string,
  e: unknown,
): StreamEnd {
  request.log.error(e, `mock messages: could not ${doing}`);
  entry.streamError = `the mock could not ${doing}: ${thrownMessage(e)}`;
  res.destroy();
  return 'disconnected';
}
