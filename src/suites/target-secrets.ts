import { redactCommand, secretsOfCommand, secretsOfUrl } from '../recording/tools/redact-target.js';
import { headerScrubber } from './given-headers.js';

// A target may carry a credential in what the user wrote: a command's `API_KEY=...` or
// `--token ...`, a URL's `?api_key=...` or user info. Reports show the command or URL
// redacted (redactCommand, redactUrl), and the values are scrubbed from every text of the
// results too: the target may quote them back (a 401 echoing the key), and so do messages
// that quote the command or URL.

/** What of a target the user wrote: the commands it runs, the URLs it reaches (absent ones skipped). */
export interface WrittenTarget {
  readonly commands?: readonly (string | undefined)[];
  readonly urls?: readonly (string | undefined)[];
}

/**
 * A suite's scrubber: what hides, in a report's text, the credentials written into the target
 * and the other secrets it was given (`--header` values that reports do not show); undefined
 * when there are none.
 */
export function targetScrubber(
  target: WrittenTarget,
  otherSecrets: readonly string[] = [],
): ((text: string) => string) | undefined {
  const commands = (target.commands ?? []).flatMap((c) => (c === undefined ? [] : secretsOfCommand(c)));
  const urls = (target.urls ?? []).flatMap((u) => (u === undefined ? [] : secretsOfUrl(u)));
  return headerScrubber([...commands, ...urls, ...otherSecrets]);
}

/**
 * A command as a message quotes it: redacted as reports show the target. Scrubbing by value
 * misses credentials shorter than 8 characters, so a message naming the command cannot rely on it.
 */
export function quotedCommand(command: string): string {
  return JSON.stringify(redactCommand(command));
}
