import { type MessageRequest, StreamProtocolError } from '../../protocol/messages/index.js';
import { MessagesClient } from './client.js';
import { AbortError, MessagesClientError, StreamError } from './errors.js';

export interface MessagesClientCommandIo {
  /** One JSON request body. */
  stdin: string;
  /** WIRECHECK_BASE_URL / WIRECHECK_API_KEY (falling back to ANTHROPIC_*), WIRECHECK_MAX_RETRIES, WIRECHECK_IDLE_TIMEOUT_MS, WIRECHECK_BODY_TIMEOUT_MS. */
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Exit status for a request the command could not even form (bad stdin or environment). */
export const EXIT_USAGE = 2;

function usage(message: string): CommandResult {
  return { stdout: '', stderr: `messages-client: ${message}\n`, exitCode: EXIT_USAGE };
}

function failure(error: MessagesClientError): CommandResult {
  // JSON.stringify leaves `status` out when there was none.
  const printed = { kind: error.kind, status: error.status, message: error.message };
  return {
    stdout: `${JSON.stringify({ error: printed })}\n`,
    stderr: `messages-client: ${error.name}: ${error.message}\n`,
    exitCode: 1,
  };
}

/**
 * The success output: the final message as one JSON line. A message that cannot be written
 * as JSON (nested deeper than JSON.stringify's recursion survives, a BigInt) came that way
 * from the service's payload, so it is the contract's `stream` failure: the command prints
 * its error object instead of dying with a stack trace and no verdict.
 */
export function messageOutput(message: unknown): CommandResult {
  let text: string | undefined;
  let problem: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    problem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  if (text !== undefined) return { stdout: `${text}\n`, stderr: '', exitCode: 0 };
  const cause = new StreamProtocolError(
    'shape',
    'a final message that can be written as JSON',
    problem ?? `a value JSON cannot hold (${typeof message})`,
    0,
  );
  return failure(
    new StreamError(
      `the final message cannot be printed as JSON: expected ${cause.expected}, got ${cause.actual}`,
      cause,
      {},
    ),
  );
}

function integerEnv(
  env: Record<string, string | undefined>,
  name: string,
  min: number,
): number | undefined | string {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) {
    return `${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`;
  }
  return value;
}

/**
 * The `messages-client` target command (TARGETS.md): one JSON request body on stdin; the
 * final message (buffered shape) on stdout and exit 0, streamed or not; on failure exit 1
 * with `{"error":{"kind","status"?,"message"}}` on stdout. A stdin that is not a JSON
 * object, or a malformed WIRECHECK_* setting, is a usage error: exit 2, nothing sent.
 * An abort by `signal` exits 1 with a line on stderr only (no failure kind applies).
 */
export async function runMessagesClientCommand(io: MessagesClientCommandIo): Promise<CommandResult> {
  let request: unknown;
  try {
    request = JSON.parse(io.stdin);
  } catch (error) {
    return usage(`stdin must hold one JSON request body: ${(error as Error).message}`);
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return usage(`stdin must hold one JSON object (the request body), got ${JSON.stringify(request)}`);
  }
  const maxRetries = integerEnv(io.env, 'WIRECHECK_MAX_RETRIES', 0);
  const idleTimeoutMs = integerEnv(io.env, 'WIRECHECK_IDLE_TIMEOUT_MS', 1);
  const bodyTimeoutMs = integerEnv(io.env, 'WIRECHECK_BODY_TIMEOUT_MS', 1);
  if (typeof maxRetries === 'string') return usage(maxRetries);
  if (typeof idleTimeoutMs === 'string') return usage(idleTimeoutMs);
  if (typeof bodyTimeoutMs === 'string') return usage(bodyTimeoutMs);

  let client: MessagesClient;
  try {
    client = new MessagesClient({
      env: io.env,
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
      ...(bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs }),
    });
  } catch (error) {
    if (error instanceof MessagesClientError) return failure(error);
    return usage((error as Error).message);
  }

  try {
    const message = await client.create(request as MessageRequest, io.signal ? { signal: io.signal } : {});
    return messageOutput(message);
  } catch (error) {
    if (error instanceof MessagesClientError) return failure(error);
    if (error instanceof AbortError)
      return { stdout: '', stderr: `messages-client: ${error.message}\n`, exitCode: 1 };
    throw error;
  }
}
