import { type ClassifiedMessage, classifyMessage } from './envelope.js';

/** One message of a body as a server answers it: never a batch. */
export type BodyMessage = Exclude<ClassifiedMessage, { kind: 'batch' }>;

/**
 * The messages of one parsed JSON value, each answered on its own (JSON-RPC 2.0, batch): a
 * batch's items in order; an empty batch, and a batch inside a batch, are one Invalid Request
 * each, id null ("rpc call with an empty Array", "rpc call with invalid Batch"). Pure; never throws.
 */
export function bodyMessages(value: unknown): BodyMessage[] {
  if (!Array.isArray(value)) return [classifyOne(value)];
  if (value.length === 0) return [{ kind: 'invalid', reason: 'an empty batch', id: null }];
  return value.map(classifyOne);
}

function classifyOne(value: unknown): BodyMessage {
  const c = classifyMessage(value);
  return c.kind === 'batch' ? { kind: 'invalid', reason: 'a batch inside a batch', id: null } : c;
}
