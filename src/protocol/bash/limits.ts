/** Runner contract and Limits: the numbers the runner rules are made of. */
export const DEFAULT_TIMEOUT_S = 20;
export const KILL_GRACE_MS = 2000;
export const OUTPUT_LIMIT_BYTES = 65536;
export const STDERR_SEPARATOR = '--- STDERR ---';
/** Runner contract 1: the blocked substrings, as the spec lists them. */
export const BLOCKED_SUBSTRINGS = [
  'rm -rf /',
  ':(){ :|:& };:',
  'mkfs',
  'dd if=',
  '> /dev/sda',
  'chmod -R 777 /',
] as const;
/** The longest UTF-8 character: a cut backs off over at most this many bytes less one. */
export const MAX_UTF8_CHAR_BYTES = 4;
