import { isSecretName, REDACTED, scrubSecrets, secretsOf } from '../redact.js';

/**
 * A server command with its secrets redacted: values of environment assignments and of
 * flags named like credentials (`API_KEY=...`, `--token X`, `--api-key=X`), and any known
 * secret value (`secrets`) wherever it appears.
 */
export function redactCommand(command: string, secrets: readonly string[] = []): string {
  const assignments = command.replace(
    /(^|\s)([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g,
    (whole, lead: string, name: string) => (isSecretName(name) ? `${lead}${name}=${REDACTED}` : whole),
  );
  const flags = assignments.replace(
    /(^|\s)(--?[A-Za-z][A-Za-z0-9_-]*)([= ])("[^"]*"|'[^']*'|[^\s-]\S*)/g,
    (whole, lead: string, flag: string, sep: string) =>
      isSecretName(flag) ? `${lead}${flag}${sep}${REDACTED}` : whole,
  );
  return scrubSecrets(flags, secrets);
}

/** A URL without credentials: user info and query parameters named like secrets are redacted. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = REDACTED;
    parsed.password = '';
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (isSecretName(name)) parsed.searchParams.set(name, REDACTED);
  }
  return parsed.href;
}

/** Secret values of an environment (variables named like credentials), for scrubbing. */
export function secretsOfEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return secretsOf(env);
}
