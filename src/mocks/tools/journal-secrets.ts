import { mergeSecrets, scrubSecrets, secretsOf, secretsOfTarget } from '../../recording/redact.js';
import type { ToolJournalInput } from './journal.js';

/**
 * The secret values a request carries (credential headers, credential query parameters):
 * the journal scrubs them from every message it records after, as the messages mock does, so
 * a key a client repeats in a tool argument is not written down in clear.
 */
export function secretsOfRequest(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  url: string,
): string[] {
  return mergeSecrets(secretsOf(headers), secretsOfTarget(url));
}

/** The entry with every known secret value replaced, in its text and in its parsed value. */
export function scrubEntry(input: ToolJournalInput, secrets: readonly string[]): ToolJournalInput {
  if (secrets.length === 0) return input;
  const text = scrubSecrets(input.text, secrets);
  if (input.value === undefined) return text === input.text ? input : { ...input, text };
  // The value was parsed from the text: a secret written with JSON escapes shows only in it.
  const valueText = JSON.stringify(input.value);
  const scrubbedValue = scrubSecrets(valueText, secrets);
  if (text === input.text && scrubbedValue === valueText) return input;
  return {
    ...input,
    text: text === input.text ? scrubbedValue : text,
    value: JSON.parse(scrubbedValue) as unknown,
  };
}
