import {
  redactCommand,
  secretsOfCommand,
  secretsOfEnv,
  secretsOfEnvValue,
  secretsOfUrl,
} from '../recording/tools/redact-target.js';
import { headerScrubber } from './given-headers.js';

// A target may carry a credential in what the user wrote: a command's `API_KEY=...` or
// `--token ...`, a URL's `?api_key=...` or user info. Reports show the command or URL
// redacted (redactCommand, redactUrl), and the values are scrubbed from every text of the
// results too: the target may quote them back (a 401 echoing the key), and so do messages
// that quote the command or URL. A target also inherits wirecheck's environment: the
// credentials in it (`OPENAI_API_KEY`, the `$MCP_TOKEN` of `--token "$MCP_TOKEN"`) are
// scrubbed the same way, for a server that prints its configuration when it fails.

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
  env: Readonly<Record<string, string | undefined>> = process.env,
): ((text: string) => string) | undefined {
  const commands = (target.commands ?? []).flatMap((c) => (c === undefined ? [] : secretsOfCommand(c, env)));
  const urls = (target.urls ?? []).flatMap((u) => (u === undefined ? [] : secretsOfUrl(u)));
  return headerScrubber([...commands, ...urls, ...otherSecrets, ...environmentSecrets(env)]);
}

/**
 * The credentials of an environment: the values of its credential-named variables
 * (secretsOfEnv), less those that are settings or paths rather than secrets (secretsOfEnvValue).
 * Shorter than 8 characters, none is scrubbed (mergeSecrets).
 */
function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return secretsOfEnv(env).flatMap(secretsOfEnvValue);
}

/**
 * Secret values a suite learns while it runs (the credential headers a client sends a mock),
 * bounded: past MAX_LEARNED_REPORT_SECRETS the one learned longest ago goes first, and a value
 * learned again counts as new, so a token a client sends in every case is kept however many
 * others pass.
 */
export const MAX_LEARNED_REPORT_SECRETS = 1_024;

export class LearnedSecrets {
  private readonly values = new Set<string>();

  learn(secrets: readonly string[]): void {
    for (const s of secrets) {
      this.values.delete(s);
      this.values.add(s);
    }
    for (const s of this.values) {
      if (this.values.size <= MAX_LEARNED_REPORT_SECRETS) break;
      this.values.delete(s);
    }
  }

  list(): string[] {
    return [...this.values];
  }
}

/**
 * A command as a message quotes it: redacted as reports show the target. Scrubbing by value
 * misses credentials shorter than 8 characters, so a message naming the command cannot rely on it.
 */
export function quotedCommand(command: string): string {
  return JSON.stringify(redactCommand(command));
}
