import type { Command } from 'commander';
import { UsageError } from '../harness/errors.js';
import { parseHeaderOptions } from '../protocol/header-option.js';
import type { RequiredHeaders } from '../servers/http/required-headers.js';

/**
 * `--require-header 'Name: value'` (repeatable) of a server command: every request without
 * that header, with exactly that value, is answered 401, so a client's credentials can be
 * tested against a server behind a token.
 */
export function addRequireHeaderOption(command: Command): Command {
  return command.option(
    '--require-header <header>',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the user types, expanded from the environment
    "sse, http: answer 401 to every request without this 'Name: value', e.g. 'Authorization: Bearer ${MCP_TOKEN}' (${VAR} is read from the environment); repeatable",
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

/** The required headers of `--require-header` values, or undefined when none were given. */
export function requiredHeadersOf(
  values: unknown,
  transport: string,
  env: Readonly<Record<string, string | undefined>>,
): RequiredHeaders | undefined {
  if (values === undefined) return undefined;
  if (transport === 'stdio')
    throw new UsageError('--require-header goes with --transport sse or http: stdio has no HTTP');
  const parsed = parseHeaderOptions(Array.isArray(values) ? values : [values], env);
  if (typeof parsed === 'string') throw new UsageError(parsed.replaceAll('--header', '--require-header'));
  return Object.fromEntries(parsed.map((h) => [h.name, h.value]));
}
