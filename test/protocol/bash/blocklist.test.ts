import { describe, expect, test } from 'vitest';
import { BLOCKED_SUBSTRINGS, blockedSubstring } from '../../../src/protocol/bash/index.js';

describe('Runner contract 1: blocked substrings', () => {
  test.each(BLOCKED_SUBSTRINGS.map((s) => [s]))(
    'the listed substring %j is refused as written',
    (blocked) => {
      expect(blockedSubstring(blocked)).toBe(blocked);
      expect(blockedSubstring(`echo start; ${blocked} # trailing`)).toBe(blocked);
    },
  );

  test.each([
    ['RM -RF /', 'rm -rf /'],
    ['rm  -rf /', 'rm -rf /'],
    ['rm\t-rf /', 'rm -rf /'],
    ['rm -rf\t\t/', 'rm -rf /'],
    ['Rm -Rf /', 'rm -rf /'],
    ['MKFS.ext4 /dev/sdb1', 'mkfs'],
    ['dd  if=/dev/zero of=x', 'dd if='],
    ['DD IF=/dev/zero', 'dd if='],
    ['cat /dev/zero >/dev/sda', '> /dev/sda'],
    ['cat /dev/zero  >  /dev/sda', '> /dev/sda'],
    [':(){ :|:& };:', ':(){ :|:& };:'],
    [':(){:|:&};:', ':(){ :|:& };:'],
    [':(){ :|: & };:', ':(){ :|:& };:'],
    [': ( ) { : | : & } ; :', ':(){ :|:& };:'],
    ['CHMOD -r 777 /', 'chmod -R 777 /'],
    ['chmod  -R\n777 /', 'chmod -R 777 /'],
  ])('the variant %j (case or whitespace changed) is refused as %j', (command, blocked) => {
    expect(blockedSubstring(command)).toBe(blocked);
  });

  test.each([['echo hello'], ['rm -rf ./build'], ['ls -la /'], ['dd of=x'], ['chmod 755 file']])(
    'the harmless command %j is not refused',
    (command) => {
      expect(blockedSubstring(command)).toBeUndefined();
    },
  );
});
