import { describe, expect, test } from 'vitest';
import { unixSocketFilter, unixSocketFilterBytes } from '../../src/runner/seccomp.js';

/** Runs a classic BPF seccomp program (the four instructions it uses) on one syscall. */
function decide(arch: string, data: { arch: number; nr: number; arg0?: number }): number {
  const program = unixSocketFilter(arch);
  if (program === undefined) throw new Error(`no filter for ${arch}`);
  const words: Record<number, number> = { 0: data.nr, 4: data.arch, 16: data.arg0 ?? 0 };
  let acc = 0;
  for (let pc = 0, steps = 0; pc < program.length && steps < 100; steps++) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) {
      acc = words[k] ?? 0;
      pc += 1;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x35) pc += 1 + (acc >>> 0 >= k >>> 0 ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code}`);
  }
  throw new Error('the program ran off its end');
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;

describe('the seccomp filter against host Unix sockets', () => {
  test.each([
    ['socket(AF_UNIX) is refused with EPERM', { arch: X64, nr: 41, arg0: 1 }, EPERM],
    ['socket(AF_INET) is allowed (the network is a namespace matter)', { arch: X64, nr: 41, arg0: 2 }, ALLOW],
    ['socket(AF_INET6) is allowed', { arch: X64, nr: 41, arg0: 10 }, ALLOW],
    [
      'socketpair(AF_UNIX) is allowed: it connects only its own two ends',
      { arch: X64, nr: 53, arg0: 1 },
      ALLOW,
    ],
    ['io_uring_setup is refused (it can open sockets itself)', { arch: X64, nr: 425 }, EPERM],
    ['read is allowed', { arch: X64, nr: 0, arg0: 1 }, ALLOW],
    [
      'connect is allowed (no Unix socket can be made to call it with)',
      { arch: X64, nr: 42, arg0: 3 },
      ALLOW,
    ],
    ['an x32 syscall is refused', { arch: X64, nr: 0x40000000 + 41, arg0: 1 }, EPERM],
    ['a syscall of another architecture (i386) is refused', { arch: 0x40000003, nr: 102, arg0: 1 }, EPERM],
  ])('x86_64: %s', (_title, data, expected) => {
    expect(decide('x64', data)).toBe(expected);
  });

  test.each([
    ['socket(AF_UNIX) is refused', { arch: ARM64, nr: 198, arg0: 1 }, EPERM],
    ['socket(AF_INET) is allowed', { arch: ARM64, nr: 198, arg0: 2 }, ALLOW],
    ['io_uring_setup is refused', { arch: ARM64, nr: 425 }, EPERM],
    ['an x86_64 syscall is refused', { arch: X64, nr: 41, arg0: 1 }, EPERM],
  ])('aarch64: %s', (_title, data, expected) => {
    expect(decide('arm64', data)).toBe(expected);
  });

  test('an architecture without a table gets no filter (and the runner says so)', () => {
    expect(unixSocketFilter('riscv64')).toBeUndefined();
    expect(unixSocketFilterBytes('riscv64')).toBeUndefined();
  });

  test('the bytes are struct sock_filter entries of 8 bytes each', () => {
    const bytes = unixSocketFilterBytes('x64');
    expect(bytes?.length).toBe((unixSocketFilter('x64')?.length ?? 0) * 8);
    expect(bytes?.readUInt16LE(0)).toBe(0x20);
    expect(bytes?.readUInt32LE(4)).toBe(4);
  });
});
