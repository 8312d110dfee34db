import { TargetUnavailable } from '../harness/check.js';
import { WirecheckError } from '../harness/errors.js';
import { withoutTerminalControls } from '../reporters/text.js';
import type { OutputStream } from './context.js';

/** Any error as a harness error: TargetUnavailable keeps its meaning, the unexpected is WC_INTERNAL. */
export function asWirecheckError(e: unknown, where?: string): WirecheckError {
  const prefix = where === undefined ? '' : `${where}: `;
  if (e instanceof WirecheckError) {
    return where === undefined ? e : new WirecheckError(e.code, `${prefix}${e.message}`, { cause: e });
  }
  if (e instanceof TargetUnavailable)
    return new WirecheckError('WC_TARGET_UNAVAILABLE', `${prefix}${e.message}`);
  const detail = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
  return new WirecheckError('WC_INTERNAL', `${prefix}${detail}`, { cause: e });
}

/**
 * One line (more for WC_INTERNAL's stack) on stderr: `wirecheck: CODE: message`. The message
 * may quote a target's output: its escape sequences are shown, not sent to the terminal.
 */
export function reportError(stderr: OutputStream, e: WirecheckError): void {
  stderr.write(`wirecheck: ${e.code}: ${withoutTerminalControls(e.message)}\n`);
}
