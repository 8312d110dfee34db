import {
  isSecretName,
  mergeSecrets,
  REDACTED,
  redactTarget,
  safeDecode,
  scrubSecrets,
  secretsOf,
  secretsOfTarget,
} from '../redact.js';

// A target as the user wrote it (a server command, a URL) may carry a credential of its own:
// `API_KEY=... server`, `server --token ...`, `https://user:pass@host/mcp?api_key=...`. What
// shows the target shows it redacted (by name), and the values are known secrets, scrubbed
// (by value) from whatever the target's answers quote: the recorders' messages, the suites'
// reports.

/** `NAME=value`, an environment assignment. */
const ASSIGNMENT = /(^|\s)([A-Za-z_][A-Za-z0-9_]*)(=)("[^"]*"|'[^']*'|\S+)/g;
/** `--flag value` or `--flag=value`; a value beginning with `-` is the next flag. */
const FLAG = /(^|\s)(--?[A-Za-z][A-Za-z0-9_-]*)([= ])("[^"]*"|'[^']*'|[^\s-]\S*)/g;
const CREDENTIAL_FORMS = [ASSIGNMENT, FLAG];
/** A URL written in a command (`npx mcp-remote https://host/sse?api_key=...`), up to a space or quote. */
const URL_IN_COMMAND = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'`]+/g;

/** A name that gives a credential: `--no-auth` switches one off, so what follows it is no value of it. */
function namesCredential(name: string): boolean {
  return !/^--?no-/i.test(name) && isSecretName(name);
}

/**
 * A server command with its secrets redacted: values of environment assignments and of
 * flags named like credentials (`API_KEY=...`, `--token X`, `--api-key=X`), the credentials
 * of URLs in it (as redactUrl), and any known secret value (`secrets`) wherever it appears.
 */
export function redactCommand(command: string, secrets: readonly string[] = []): string {
  let out = command;
  for (const form of CREDENTIAL_FORMS) {
    out = out.replace(form, (whole, lead: string, name: string, sep: string) =>
      namesCredential(name) ? `${lead}${name}${sep}${REDACTED}` : whole,
    );
  }
  out = out.replace(URL_IN_COMMAND, redactUrl);
  return scrubSecrets(out, secrets);
}

/** A variable named rather than a value given (`$TOKEN`, `${TOKEN}`): reports keep it, so it is no secret to scrub. */
const VARIABLE_REFERENCE = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$/;

/** A variable the shell expands in a command: `$NAME`, `${NAME}`, `${NAME:-default}`; its name. */
const REFERENCE_IN_TEXT = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** The names of the variables `text` refers to. */
function referencedNames(text: string): string[] {
  return [...text.matchAll(REFERENCE_IN_TEXT)].map((m) => (m[1] ?? m[2])!);
}

/**
 * The values redactCommand redacts by name (credential assignments and flags, URLs' credentials),
 * unquoted. Given the environment the command runs in (`sh -c` expands it), the values of the
 * variables it refers to where a credential goes (`--token "$MCP_TOKEN"`, `API_KEY=${KEY}`), and
 * of the credential-named ones it refers to anywhere (`--header "Authorization: Bearer $GH_TOKEN"`):
 * the target is given them, and may quote them back. An assignment in the command itself
 * (`T=abc server --token $T`) is the value it refers to.
 */
export function secretsOfCommand(
  command: string,
  env?: Readonly<Record<string, string | undefined>>,
): string[] {
  const values: string[] = [];
  const referred: string[] = [];
  const assigned: Record<string, string> = {};
  for (const form of CREDENTIAL_FORMS) {
    for (const [, , name, sep, given] of command.matchAll(form)) {
      const value = /^(["']).*\1$/s.test(given!) ? given!.slice(1, -1) : given!;
      if (form === ASSIGNMENT && sep === '=') assigned[name!] = value;
      if (!namesCredential(name!)) continue;
      if (!VARIABLE_REFERENCE.test(value)) values.push(value);
      referred.push(...referencedNames(value));
    }
  }
  if (env !== undefined) {
    for (const name of referencedNames(command)) if (isSecretName(name)) referred.push(name);
    // What the command writes is the user's own credential, as given; what the environment
    // holds may be a setting or a path (`--auth-mode "$AUTH_MODE"`), as of any variable.
    for (const name of referred) {
      const own = assigned[name];
      values.push(...(own !== undefined ? [own] : secretsOfEnvValue(env[name] ?? '')));
    }
  }
  const inUrls = [...command.matchAll(URL_IN_COMMAND)].map(([url]) => secretsOfUrl(url));
  return mergeSecrets(values, ...inUrls);
}

/** A value made of words only (`disabled`, `client_credentials`, `x-api-key`): a setting, not a secret. */
const WORDS = /^[A-Za-z]+(?:[-_.][A-Za-z]+)*$/;
/** A file's path (`SSH_AUTH_SOCK`, `GOOGLE_APPLICATION_CREDENTIALS`): where a secret is, not one. */
const PATH = /^(?:~|\.{1,2})?\/\S*$/;

/**
 * The secrets of a credential variable's value, to scrub from every text of a report: none
 * for a word or a path, which would garble messages that name it (`AUTH_HEADER=x-api-key`);
 * of a URL (`DATABASE_AUTH_URL`), its user info and credential-named parameters; else the value.
 */
export function secretsOfEnvValue(value: string): string[] {
  if (WORDS.test(value) || PATH.test(value)) return [];
  return /^https?:\/\//i.test(value) && URL.canParse(value) ? secretsOfUrl(value) : [value];
}

/** The user info of a URL (`https://user:pass@host/`): everything between `//` and the authority's last `@`. */
const USER_INFO = /^(\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)@/;

/**
 * A URL without credentials: user info and query parameters named like secrets are redacted,
 * the rest as given (not as the URL parser would spell it, so `[redacted]` reads as such).
 */
export function redactUrl(url: string): string {
  return redactTarget(url.replace(USER_INFO, `$1${REDACTED}@`));
}

/** The values redactUrl redacts (user info, credential-named query parameters), as given and decoded. */
export function secretsOfUrl(url: string): string[] {
  const userInfo = USER_INFO.exec(url)?.[2];
  if (userInfo === undefined) return secretsOfTarget(url);
  // user:password, split at the first colon only: a password may hold colons itself.
  const colon = userInfo.indexOf(':');
  const parts = colon < 0 ? [userInfo] : [userInfo, userInfo.slice(0, colon), userInfo.slice(colon + 1)];
  return mergeSecrets(parts, parts.map(safeDecode), secretsOfTarget(url));
}

/** Secret values of an environment (variables named like credentials), for scrubbing. */
export function secretsOfEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return secretsOf(env);
}
