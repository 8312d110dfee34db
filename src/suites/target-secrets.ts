import {
  redactCommand,
  secretsOfCommand,
  secretsOfEnv,
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

/** A value made of words only (`disabled`, `client_credentials`, `x-api-key`): a setting, not a secret. */
const WORDS = /^[A-Za-z]+(?:[-_.][A-Za-z]+)*$/;
/** A file's path (`SSH_AUTH_SOCK`, `GOOGLE_APPLICATION_CREDENTIALS`): where a secret is, not one. */
const PATH = /^(?:~|\.{1,2})?\/\S*$/;

/**
 * The credentials of an environment: the values of its credential-named variables
 * (secretsOfEnv), less those that are settings rather than secrets: scrubbed from every
 * text of a report, a word or a path such as these would garble messages that name it
 * (`AUTH_HEADER=x-api-key`). The credentials of a URL (`DATABASE_AUTH_URL`) are its user info
 * and credential-named parameters. Shorter than 8 characters, none is scrubbed (mergeSecrets).
 */
function environmentSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  return secretsOfEnv(env).flatMap((value) => {
    if (WORDS.test(value) || PATH.test(value)) return [];
    return /^https?:\/\//i.test(value) && URL.canParse(value) ? secretsOfUrl(value) : [value];
  });
}

/**
 * A command as a message quotes it: redacted as reports show the target. Scrubbing by value
 * misses credentials shorter than 8 characters, so a message naming the command cannot rely on it.
 */
export function quotedCommand(command: string): string {
  return JSON.stringify(redactCommand(command));
}
