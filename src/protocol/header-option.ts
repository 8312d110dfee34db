/**
 * A `--header 'Name: value'` as given on a command line: what is sent, and the value as
 * given, where `${VAR}` stays unexpanded for whatever prints the command again.
 */
export interface GivenHeader {
  readonly name: string;
  /** Sent with requests; `${VAR}` read from the environment. */
  readonly value: string;
  readonly given: string;
}

/**
 * Headers a wirecheck MCP client over HTTP (the tool-server suite, the probe) sets itself
 * on its requests, or judges the server by: a `--header` naming one would change what is
 * sent, and so what is judged.
 */
export const OWNED_HEADER_NAMES: readonly string[] = [
  'content-type',
  'content-length',
  'accept',
  'host',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'origin',
];

/** RFC 9110 token: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `--header` values (commander collects a repeatable option into a list), or what is wrong
 * with them: no colon, no name, an empty value, a name in `owned` (set by the caller itself),
 * a name given twice, an unset `${VAR}`, or a control character or one above U+00FF, which
 * Node would refuse only when the request is made.
 */
export function parseHeaderOptions(
  values: readonly unknown[],
  env: Readonly<Record<string, string | undefined>>,
  owned: readonly string[] = [],
): GivenHeader[] | string {
  const headers: GivenHeader[] = [];
  for (const text of values) {
    const one = parseHeaderOption(text, env, owned);
    if (typeof one === 'string') return one;
    if (headers.some((h) => h.name.toLowerCase() === one.name.toLowerCase())) {
      return `--header ${one.name} is given twice: give each header once`;
    }
    headers.push(one);
  }
  return headers;
}

function parseHeaderOption(
  text: unknown,
  env: Readonly<Record<string, string | undefined>>,
  owned: readonly string[],
): GivenHeader | string {
  const colon = typeof text === 'string' ? text.indexOf(':') : -1;
  if (typeof text !== 'string' || colon < 0)
    return `--header takes 'Name: value', got ${JSON.stringify(text)}`;
  const name = text.slice(0, colon).trim();
  const given = text.slice(colon + 1).trim();
  if (!HEADER_NAME.test(name)) {
    return `--header needs an HTTP header name before the colon, got ${JSON.stringify(text)}`;
  }
  if (given === '') return `--header ${name} has an empty value, got ${JSON.stringify(text)}`;
  if (owned.includes(name.toLowerCase())) {
    return `--header ${name}: wirecheck sets ${name} itself (it cannot be given: ${owned.join(', ')})`;
  }
  let unset: string | undefined;
  const value = given.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const found = env[variable];
    if (found === undefined) unset ??= variable;
    return found ?? '';
  });
  if (unset !== undefined) {
    return `--header ${name} names the environment variable ${unset}, which is not set`;
  }
  if (/[\0-\x08\x0a-\x1f\x7f]/.test(value)) {
    return `--header ${name}: the value holds a control character (a line break?)`;
  }
  // A header value is bytes: Node sends U+0080..U+00FF as one byte each and refuses the rest
  // only when the request is made, which would read as the target's fault.
  const wide = uncarriedInHeader(value);
  if (wide !== undefined) {
    return `--header ${name}: the value holds ${wide.code} at character ${wide.index + 1}, which a header cannot carry (only characters up to U+00FF; percent-encode or base64 the value)`;
  }
  return { name, value, given };
}

/**
 * The first character a header value cannot carry, as fetch and Node judge one: anything but a
 * tab and U+0020..U+00FF, and U+007F. Its code (`U+0100`) and index, or undefined.
 */
export function uncarriedInHeader(value: string): { code: string; index: number } | undefined {
  const found = /[^\t\x20-\x7e\x80-\xff]/.exec(value);
  if (found === null) return undefined;
  return {
    code: `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
    index: found.index,
  };
}
