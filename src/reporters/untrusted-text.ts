// Text a target or a file wrote, as wirecheck's console shows it. Apart from text.ts, which
// loads the result schemas, so that the commands a suite starts once per case can load it.

/**
 * Characters that would move or restyle a terminal (ESC, CR, backspace, C1 controls), or
 * reorder or break what it shows: the bidirectional marks, embeddings, overrides and
 * isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069: a right-to-left override
 * shows `exe.txt` as `txt.exe`) and the line and paragraph separators (U+2028, U+2029). A
 * target's message must not be able to rewrite the console report.
 */
const TERMINAL_CONTROL_CHAR =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]|[\uD800-\uDFFF]/gu;

/** `\uXXXX`: how a character that may not be shown as itself is shown. */
export function codeUnitEscape(ch: string): string {
  return `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

export function withoutTerminalControls(text: string): string {
  return text.replace(TERMINAL_CONTROL_CHAR, codeUnitEscape);
}

/**
 * What the GitHub Actions runner skips before it looks for `::` at the start of a line, and
 * between the characters of `##[`: whitespace (its TrimStart), and characters a
 * culture-aware comparison (its StartsWith, IndexOf) may ignore (format characters such as
 * U+00AD and U+200B, combining marks, controls). Line breaks are left out: the runner reads
 * line by line, and a run of them searched from each of its lines would be quadratic.
 */
const RUNNER_IGNORES = String.raw`(?:(?![\n\r\u2028\u2029])[\s\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Zs}])`;
/** `::` at the start of a line, however preceded by what the runner skips: a workflow command. */
const LINE_START_COLON = new RegExp(`^(${RUNNER_IGNORES}*):`, 'gmu');
/** `##[` anywhere in a line: the runner's legacy command form. */
const LEGACY_COMMAND = new RegExp(String.raw`#(${RUNNER_IGNORES}*)#(${RUNNER_IGNORES}*)\[`, 'gu');
/** The end of a text that `##[` may complete in the next chunk: a `#`, perhaps two. */
const LEGACY_COMMAND_START = new RegExp(`#${RUNNER_IGNORES}*(?:#${RUNNER_IGNORES}*)?$`, 'u');
/** A line so far made of nothing the runner reads: a `:` after it starts a command. */
const BLANK_LINE_START = new RegExp(`^${RUNNER_IGNORES}*$`, 'u');

/**
 * `text` with no line of it a GitHub Actions workflow command (`::add-mask::x`, `::error::`,
 * `::set-output ...`, and the legacy `##[...]`): the runner obeys them wherever a line of the
 * job's output holds them, so a target's text quoted there could set outputs, mask the word
 * FAIL or write annotations. A `:` that starts a line is shown as `\u003a` and the `[` of `##[`
 * as `\u005b`: text as readable as the other escapes, and JSON escapes of the same
 * characters, so a JSON text stays the same JSON.
 */
export function withoutWorkflowCommands(text: string): string {
  return text.replace(LINE_START_COLON, '$1\\u003a').replace(LEGACY_COMMAND, '#$1#$2\\u005b');
}

/**
 * withoutWorkflowCommands for text written in chunks to one stream: a chunk is judged with
 * the end of the line before it (its start, when only blanks have been written on it; or a
 * `#` that `##[` would complete), as the runner reads the lines they make.
 */
export function workflowCommandFilter(): (chunk: string) => string {
  // What the next chunk is read after: `\n`, a line start (its blanks so far left out), or
  // `x` and the `#` or `##` that `##[` may complete (their blanks left out). The runner
  // skips blanks, so they change nothing in what a chunk completes; kept, a line's blanks
  // written in many pieces were read again with each piece (20,000 of five spaces: 301 s).
  let before = '\n';
  return (chunk) => {
    const text = before + chunk;
    const out = withoutWorkflowCommands(text).slice(before.length);
    const lineEnd = Math.max(...['\n', '\r', '\u2028', '\u2029'].map((c) => text.lastIndexOf(c)));
    const line = text.slice(lineEnd + 1);
    if (lineEnd >= 0 && BLANK_LINE_START.test(line)) before = '\n';
    // `x`: no line start, so a `:` that opens the next chunk is left as it is.
    else before = `x${(LEGACY_COMMAND_START.exec(line)?.[0] ?? '').replace(/[^#]/g, '')}`;
    return out;
  };
}

/** Whether the GitHub Actions runner reads this process's output (and obeys workflow commands in it). */
export function readByGitHubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/**
 * `text` with its line feeds shown as `\n`: for text that is one field of a one-line message
 * (a file name, an event name, a header). A line feed there would end wirecheck's line and
 * start one the text wrote (a fixture named `x\nfixtures/ok.json: ok: ...` would print an
 * `ok` line of its own). A carriage return and the other line breaks are terminal controls,
 * shown as `\uXXXX` by withoutTerminalControls.
 */
export function withoutLineBreaks(text: string): string {
  return text.replace(/\n/g, '\\n');
}

/**
 * Text from a target or a file as part of one console line, the one way every command prints
 * such text: on that line (a line feed as `\n`), its terminal controls as text and, where the
 * GitHub Actions runner reads the output, no line of it a workflow command. Text of many
 * lines whose breaks are wirecheck's own (JSON it pretty-printed) is shown line by line.
 */
export function shownUntrusted(text: string, env: Readonly<Record<string, string | undefined>>): string {
  const shown = withoutTerminalControls(withoutLineBreaks(text));
  return readByGitHubActions(env) ? withoutWorkflowCommands(shown) : shown;
}
