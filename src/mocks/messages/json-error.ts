import { REDACTED, scrubSecrets } from '../../recording/redact.js';

/**
 * Fewest characters in a row of a secret that count as quoting it. The parser quotes at
 * most 20 characters; fewer than this of a key say next to nothing of it.
 */
const SECRET_PART = 4;

/** V8's quote of the body around where parsing failed, up to 10 characters either side. */
const QUOTE = /^(Unexpected token '[\s\S]{1,2}', (?:\.\.\.)?")([\s\S]*)("(?:\.\.\.)? is not valid JSON)$/;

/**
 * The message of JSON.parse's error for a body, without the secrets the request presented.
 * The parser's quote usually cuts a secret (`..."api_key":sk-ant-api"...`), which scrubbing
 * whole secrets misses: a quote holding any SECRET_PART characters in a row of a secret is
 * replaced whole.
 */
export function jsonErrorMessage(error: unknown, secrets: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  if (secrets.length === 0) return message;
  const quote = QUOTE.exec(message);
  if (quote && quotesPartOf(quote[2]!, secrets)) return `${quote[1]}${REDACTED}${quote[3]}`;
  return scrubSecrets(message, secrets);
}

function quotesPartOf(quote: string, secrets: readonly string[]): boolean {
  for (let i = 0; i + SECRET_PART <= quote.length; i++) {
    const part = quote.slice(i, i + SECRET_PART);
    for (const secret of secrets) if (secret.includes(part)) return true;
  }
  return false;
}
