import { BLOCKED_SUBSTRINGS } from './limits.js';

/** Lower-case and collapse every whitespace run to one space. */
function normalize(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ');
}

/** Lower-case and drop all whitespace (catches `:(){:|:&};:` and `>/dev/sda`). */
function squeeze(s: string): string {
  return s.toLowerCase().replace(/\s+/g, '');
}

const NORMALIZED = BLOCKED_SUBSTRINGS.map(normalize);
const SQUEEZED = BLOCKED_SUBSTRINGS.map(squeeze);

/**
 * Runner contract 1: the blocked substring a command contains, or undefined. The match is
 * made on the lower-cased command with whitespace runs collapsed, and again with all
 * whitespace removed, so `RM -RF /`, `rm\t-rf /`, `dd  if=`, `>/dev/sda` and the fork bomb
 * with or without spaces are all caught. The blocklist is a tripwire, not the security
 * boundary: isolation is (see docs/runner.md).
 */
export function blockedSubstring(command: string): string | undefined {
  const n = normalize(command);
  const q = squeeze(command);
  for (let i = 0; i < BLOCKED_SUBSTRINGS.length; i++) {
    if (n.includes(NORMALIZED[i]!) || q.includes(SQUEEZED[i]!)) return BLOCKED_SUBSTRINGS[i];
  }
  return undefined;
}
