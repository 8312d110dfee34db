/**
 * A seccomp filter (classic BPF, as `bwrap --seccomp FD` takes it) that keeps a sandboxed
 * command away from the host's Unix sockets: `socket(AF_UNIX, ...)` fails with EPERM, so
 * no pathname socket can be connected to, wherever it sits on the host file system (a
 * read-only mount does not stop a connect). Also refused: io_uring (it can open sockets
 * without the socket call) and the x32 ABI and any other architecture (their syscall
 * numbers differ). socketpair stays allowed: it connects only the two ends it makes, and
 * programs use it for their own pipes. Everything else is allowed.
 */

/** `struct seccomp_data` offsets. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
const X32_SYSCALL_BIT = 0x40000000;

interface ArchTable {
  readonly audit: number;
  readonly socket: number;
  readonly ioUringSetup: number;
  /** x86_64 only: syscall numbers at or above this are the x32 ABI. */
  readonly x32From?: number;
}

/** Per architecture (Node's `process.arch`): AUDIT_ARCH_* and the syscall numbers. */
const ARCHES: Readonly<Record<string, ArchTable>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, x32From: X32_SYSCALL_BIT },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

interface Instruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const ld = (offset: number): Instruction => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (value: number): Instruction => ({ code: BPF_RET_K, jt: 0, jf: 0, k: value });
const jeq = (k: number, jt: number, jf: number): Instruction => ({ code: BPF_JEQ_K, jt, jf, k });
const jge = (k: number, jt: number, jf: number): Instruction => ({ code: BPF_JGE_K, jt, jf, k });

/** The filter as instructions, or undefined for an architecture it does not know. */
export function unixSocketFilter(arch: string = process.arch): Instruction[] | undefined {
  const table = ARCHES[arch];
  if (table === undefined) return undefined;
  const deny = ret(SECCOMP_RET_ERRNO | EPERM);
  const allow = ret(SECCOMP_RET_ALLOW);
  // A jump's offsets count the instructions after it: from instruction i, jt = t - i - 1.
  const program: Instruction[] = [
    ld(ARCH), // 0
    jeq(table.audit, 1, 0), // 1: this arch -> 3, another -> 2
    deny, // 2
    ld(NR), // 3
    table.x32From === undefined ? jeq(0xffffffff, 0, 0) : jge(table.x32From, 4, 0), // 4: x32 -> 9
    jeq(table.ioUringSetup, 3, 0), // 5: io_uring_setup -> 9
    jeq(table.socket, 0, 3), // 6: socket -> 7, anything else -> 10
    ld(ARG0_LOW), // 7: the domain
    jeq(AF_UNIX, 0, 1), // 8: AF_UNIX -> 9, another domain -> 10
    deny, // 9
    allow, // 10
  ];
  return program;
}

/** The filter as the bytes of a `struct sock_filter` array (host byte order), or undefined. */
export function unixSocketFilterBytes(arch: string = process.arch): Buffer | undefined {
  const program = unixSocketFilter(arch);
  if (program === undefined) return undefined;
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, i) => {
    const at = i * 8;
    bytes.writeUInt16LE(instruction.code, at);
    bytes.writeUInt8(instruction.jt, at + 2);
    bytes.writeUInt8(instruction.jf, at + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, at + 4);
  });
  return bytes;
}
