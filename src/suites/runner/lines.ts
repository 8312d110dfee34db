import { randomBytes } from 'node:crypto';
import { BashToolUse } from '../../protocol/bash/index.js';

/** A fresh tool_use id in the real API's shape (`toolu_` and base62). */
export function newToolUseId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(24);
  let id = 'toolu_wc';
  for (const b of bytes) id += alphabet[b % alphabet.length];
  return id;
}

/** One input line of a session and the id its result must carry (undefined: the line has none). */
export interface InputLine {
  readonly text: string;
  readonly id: string | undefined;
}

/** A bash tool_use block as a JSON line, checked against the schema the contract defines. */
export function toolUse(command: string, options: { id?: string; restart?: boolean } = {}): InputLine {
  const id = options.id ?? newToolUseId();
  const block = BashToolUse.parse({
    type: 'tool_use',
    id,
    name: 'bash',
    input: options.restart === undefined ? { command } : { command, restart: options.restart },
  });
  return { text: JSON.stringify(block), id };
}

/** A line that is not a valid bash tool_use (bad JSON, wrong shape); `id` when it still names one. */
export function rawLine(text: string, id?: string): InputLine {
  if (text.includes('\n')) throw new Error('an input line cannot hold a line break');
  return { text, id };
}

/** A command for a check that looks for its output in the result, and the line it prints. */
export interface PrintingCommand {
  readonly command: string;
  readonly output: string;
}

/**
 * `printf '<word>-%s\n' <suffix>`, which prints `<word>-<suffix>`: a word its own text does not
 * hold. expectCommandOutput finds a one-word output anywhere in a result, so a command that held
 * its own output (`echo hello`) would pass a runner that shows the command instead of running it
 * (a dry run answering `$ echo hello`). printf with %s is POSIX sh, and no blocklist has a reason
 * to refuse it.
 */
export function printing(word: string, suffix: string | number): PrintingCommand {
  const tail = String(suffix);
  if (!/^[a-z][a-z0-9]*$/.test(word) || !/^[a-z0-9]+$/.test(tail)) {
    throw new Error(`printing: ${JSON.stringify(word)} and ${JSON.stringify(tail)} must be plain words`);
  }
  return { command: `printf '${word}-%s\\n' ${tail}`, output: `${word}-${tail}\n` };
}
