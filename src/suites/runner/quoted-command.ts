import { expectThat } from '../../harness/check.js';
import type { BashToolResult } from '../../protocol/bash/index.js';
import { abbreviate, mentions } from './expect.js';

// A runner may quote the command it answers ("compound commands are not supported: <command>").
// What a check looks for in a runner's text must be in the runner's own words: wirecheck's
// command, quoted back, never counts, whatever words it holds.

/** How a quote of `command` reads: as written, or escaped as the body of a JSON (or Python) string. */
function quotedForms(command: string): string[] {
  const forms = new Set([command, JSON.stringify(command).slice(1, -1)]);
  // Longest first: the escaped form holds the command's shorter lines as written.
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/**
 * `text` with every quote of `command` cut out. The pieces are kept apart by a line break, which
 * no wording pattern reads across, so two of them never join into a word or a phrase.
 */
export function withoutCommand(text: string, command: string): string {
  let rest = text;
  for (const form of quotedForms(command)) rest = rest.split(form).join('\n');
  return rest;
}

/** `pattern` (a wording) matches the result's text once every quote of `command` is cut out. */
export function expectOwnWordsMatch(
  result: BashToolResult,
  pattern: RegExp,
  command: string,
  what: string,
  wanted: string,
): void {
  expectThat(
    mentions(pattern, withoutCommand(result.content, command)),
    `${what}: the content does not ${wanted} (the command's own text, quoted, does not count)`,
    String(pattern),
    abbreviate(result.content),
  );
}
