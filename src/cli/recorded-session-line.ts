import type { ToolSession } from '../fixtures/index.js';
import { DEFAULT_MAX_LINE_BYTES } from '../protocol/jsonrpc/index.js';

/**
 * The line `record tools` prints when a session's file is written: a session cut at the
 * recorder's limit, or whose bytes could not be decoded, says so here, not only in its file.
 * `why` may quote the server (a Content-Encoding it sent): the caller shows it as untrusted.
 */
export function recordedSessionLine(session: ToolSession, file: string | undefined, why?: string): string {
  const long = session.messages.filter((m) => m.cut).length;
  const longNote =
    long > 0 ? ` (${long} longer than ${DEFAULT_MAX_LINE_BYTES} bytes, recorded cut: only their start)` : '';
  let cut = '';
  if (session.truncated === true) {
    const unrecorded =
      session.unrecordedBytes === undefined
        ? ''
        : `, ${session.unrecordedBytes} bytes relayed but not recorded`;
    cut = `, recording cut (marked truncated${unrecorded})${why === undefined ? '' : `: ${why}`}`;
  }
  return `recorded ${session.transport} session, ${session.messages.length} message(s)${longNote}${cut}: ${file ?? '(not written)'}`;
}
