import { errorResponse, JSONRPC_ERRORS } from '../../protocol/jsonrpc/index.js';
import { type Transport, TransportClosedError } from '../../transports/transport.js';
import {
  type HandleOutcome,
  parseErrorResponse,
  type ToolServerCore,
  type ToolServerSession,
} from './core.js';
import type { ToolTransportName } from './tool.js';

export interface ServeSessionOptions {
  readonly transport: ToolTransportName;
  readonly id?: string;
  readonly log?: (line: string) => void;
  /** Called once when the transport ends, after the session closed. */
  readonly onClose?: () => void;
}

/**
 * Run one core session over one Transport: what arrives is handled, replies are sent,
 * input that is not JSON is answered -32700, and the transport's end closes the session
 * (its in-flight calls are aborted). The transport must not have been started yet.
 */
export function serveSession(
  core: ToolServerCore,
  transport: Transport,
  options: ServeSessionOptions,
): ToolServerSession {
  const session = core.openSession({
    transport: options.transport,
    ...(options.id === undefined ? {} : { id: options.id }),
  });
  const log = options.log ?? (() => {});
  const send = (reply: unknown, retry = true): void => {
    if (reply === undefined || session.closed) return;
    transport.send(reply).catch((e: unknown) => {
      const reason = e instanceof Error ? e.message : String(e);
      log(`session ${session.id}: a reply could not be sent: ${reason}`);
      // A reply that cannot be serialized (a tool returned a BigInt or a cycle) still
      // gets an answer, so the client does not wait forever.
      const id = (reply as { id?: unknown }).id;
      if (
        retry &&
        !(e instanceof TransportClosedError) &&
        (typeof id === 'number' || typeof id === 'string')
      ) {
        send(
          errorResponse(
            id,
            JSONRPC_ERRORS.internalError,
            `Internal error: the reply could not be sent: ${reason}`,
          ),
          false,
        );
      }
    });
  };
  const deliver = (outcome: HandleOutcome): void => {
    if (outcome instanceof Promise) outcome.then(send);
    else send(outcome);
  };
  transport.onmessage = (value) => deliver(session.handle(value));
  transport.onerror = (error) => {
    if (error.kind === 'parse') {
      log(`session ${session.id}: ${error.message}`);
      send(parseErrorResponse(error.message));
      return;
    }
    log(`session ${session.id}: ${error.message}`);
  };
  transport.onclose = () => {
    session.close();
    options.onClose?.();
  };
  return session;
}
