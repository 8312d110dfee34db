// A small bash runner written from the spec alone (Node built-ins, no wirecheck code), with
// switchable flaws. Without flaws it is a second, independent conforming runner: the suite
// must pass it. Each file next to this one turns on one flaw.
//
// Design: one sandboxed shell per command. When bubblewrap works, the command runs in
// its own PID namespace (nothing it starts can outlive it, not even a setsid escapee);
// otherwise in its own process group. Root drops to nobody. Timeout: SIGTERM to the
// command's group, SIGKILL 2 s later. Output: both streams captured, assembled, cut at
// 65536 bytes on a character boundary.

import { isUtf8 } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * @typedef {object} Flaws
 * @property {boolean} [shellIgnoresTerm] not a flaw: the command's shell ignores SIGTERM, as an interactive shell does
 * @property {boolean} [ignoreProcessGroup] no sandbox, no group of its own; the timeout signals the direct child only
 * @property {boolean} [cutByCharacters] truncate at 65536 characters instead of bytes
 * @property {boolean} [replacementAtCut] cut at 65536 bytes without backing off to a character boundary
 * @property {boolean} [runAsRoot] never drop root
 * @property {boolean} [noSeparator] join stdout and stderr without the separator
 * @property {boolean} [alwaysSeparator] put the separator in even when stdout is empty
 * @property {boolean} [isErrorOnStderr] is_error when stderr is non-empty
 * @property {boolean} [emptyBlankText] blank output gives an empty text
 * @property {boolean} [noRefusal] no blocklist
 * @property {boolean} [refuseCompound] refuse every compound command (`;`, `&&`, a line break) before the
 *   blocklist, with an error that quotes it and names no security violation
 * @property {boolean} [refusalQuotesCommand] not a flaw: the refusal text quotes the command after the pattern
 * @property {boolean} [blankQuotesCommand] blank output's text quotes the command and gives any failure's exit
 *   code as 1
 * @property {boolean} [twoSubstringsCaseSensitive] check only the first two substrings, case-sensitively
 * @property {boolean} [skipBadLines] print nothing for a line that is not a valid tool_use
 * @property {boolean} [dieOnBadLine] exit with an error at the first line that is not a valid tool_use (a Python
 *   runner whose json.loads or input["command"] raises): input the contract does not promise, so not a must
 * @property {boolean} [noTimeout] never stop a command
 * @property {boolean} [ignoreWorkdir] run in a folder of its own instead of WIRECHECK_WORKDIR
 * @property {boolean} [inheritEnv] give commands its own environment, beside the PATH, HOME, USER and LANG it sets
 * @property {boolean} [runInCwd] run commands in the directory it was started in, not WIRECHECK_WORKDIR
 * @property {boolean} [killAtOnce] SIGKILL at the timeout without a grace (allowed by the spec)
 * @property {number} [graceMs] wait this long between SIGTERM and SIGKILL (default 2000, the reference's)
 * @property {boolean} [failureStderrOnly] a failing command's content is its stderr alone (stdout dropped)
 * @property {boolean} [crashOnBadWorkdir] prepare the working directory's parent at start-up and crash when it cannot
 * @property {boolean} [keepOutput] hold up to 384 MiB of each stream in memory, not just what the result keeps
 * @property {number} [readBytesPerS] read each command's output no faster than this (a runner on a busy machine)
 * @property {number} [defaultTimeoutS] the timeout when WIRECHECK_TIMEOUT_S is unset (the spec: 20)
 * @property {boolean} [trimTrailingNewlines] drop the trailing line breaks of the text (as the official SDK's bash tool does)
 * @property {boolean} [keepJobs] no sandbox, and never kill what a command leaves in its group (restart does nothing)
 * @property {boolean} [strictUtf8] decode output strictly: bytes that are not UTF-8 crash the runner
 * @property {boolean} [refuseSetsid] refuse every command that holds "setsid" (a stricter blocklist: allowed)
 * @property {number} [exitDelayMs] not a flaw: exit that many ms after stdin ends (a sandbox torn down)
 * @property {boolean} [refuseExport] refuse every command that holds "export" (a stricter blocklist: allowed)
 * @property {boolean} [killGroupsAtExit] no sandbox; the timeout signals the shell only, and every command's group is killed when the runner exits
 * @property {boolean} [otherWords] not a flaw: its own words for the notes (the limit as "64 kilobyte", blank
 *   output as "no stdout or stderr", the timeout as "exceeded the time limit"), and a stdout ending in a
 *   line break lends it to the separator line
 * @property {boolean} [longForms] not a flaw: content as a text block, is_error left out when false
 * @property {boolean} [bufferAnswers] not a flaw: hold every result line until stdin ends, as a Python
 *   runner's print to a pipe does
 * @property {number} [lateFirstAnswerMs] not a flaw: the first answer is written this many ms late, while
 *   the next command already runs (as the harness sees a prompt runner when it reads that answer late)
 * @property {number} [heldWritesApartMs] with bufferAnswers: write the held lines one at a time, this
 *   many ms apart (a runner flushing each answer at its exit), instead of in one write
 * @property {number} [startupMs] not a flaw: wait this long before reading stdin (a container starting)
 * @property {boolean} [noPidNamespace] never sandbox: each command has its own process group only, killed when
 *   the command ends (what the spec requires, not what it recommends)
 * @property {boolean} [rootInUserNamespace] not a flaw: commands run as root of a user namespace that maps it
 *   to an unprivileged user (a rootless container), where the machine allows one
 * @property {boolean} [keepExports] not a flaw: the variables a command exports are there for the next
 *   command, as in one persistent shell, until a restart discards them
 * @property {boolean} [restartKeepsExports] with keepExports: a restart does not discard them
 * @property {boolean} [latestId] read ahead: each command is queued as its line is read, and its answer
 *   carries the id of the line read last (one shared variable), not of the line it answers
 * @property {boolean} [blocklistEmptyEntry] the blocklist is split from a text that ends in a line break:
 *   its empty last entry is in every command, so every command is refused
 * @property {boolean} [signalAsExitZero] no sandbox; a shell killed by a signal (Node's exit code null)
 *   counts as exit code 0
 * @property {boolean} [noteAtLimit] an off-by-one: output of exactly 65536 bytes gets the truncation note
 * @property {boolean} [cutPastLimit] the other off-by-one: output of 65537 bytes comes back whole, without
 *   the note (only more than that is cut)
 * @property {number} [maxBufferBytes] a command whose stdout and stderr together pass this many bytes is
 *   killed and answered with an error, as Node's exec does past its maxBuffer
 * @property {boolean} [termOnly] the timeout sends the terminate signal only, no kill signal after the grace
 * @property {boolean} [silentRestart] a line with `restart: true` is a control message: the session is
 *   restarted, its command neither run nor answered
 * @property {boolean} [lineLimit] crash on an input line over 64 KiB (a line reader with a fixed limit, as
 *   Python asyncio's StreamReader has)
 * @property {boolean} [inheritUser] commands get the runner's own USER, not the fixed one
 * @property {boolean} [inheritPath] commands get the runner's own PATH, not the minimal one
 * @property {'bare' | 'noted'} [uncutInvalidUtf8] output that is not valid UTF-8 skips the cut (a cut that
 *   bails out on a strict decode): it comes back whole, its bad bytes replaced, without the note ('bare')
 *   or with it when over the limit ('noted')
 * @property {boolean} [waitForPipes] no sandbox (whose end would close them); a command is answered when its
 *   output pipes close, not when its shell exits (as Node's exec does): a background job holding them holds
 *   the answer until the timeout
 * @property {boolean} [pipeWaitNotTimedOut] with waitForPipes: a command whose shell exited before the timeout is
 *   answered as it ended (its output and exit code, no timeout text), though the timeout ended the job holding its
 *   pipes (a runner that waits for the shell, then reads its pipes to the end)
 * @property {boolean} [timeoutDropsOutput] a timed-out result is the timeout text alone, the output so far dropped
 * @property {'content-object' | 'is-error-number'} [malformedEnvAnswer] the answer to `env` alone is no valid
 *   tool_result: its content an object holding the output, or is_error a number
 * @property {boolean} [labelledOutput] output assembled as "STDOUT:\n<stdout>" and "\nSTDERR:\n<stderr>" (each when
 *   non-empty) instead of stdout, then the separator and stderr (breaks Runner contract item 4 only)
 * @property {boolean} [labelledExitCode] with labelledOutput: the exit code follows the output as a framed line of
 *   its own ("EXIT CODE:\n0\n"), so the text of `id -u` holds two bare numbers
 * @property {boolean} [ownSleep] not a flaw: the commands' shell has a sleep of its own (busybox's applet, bash's
 *   loadable builtin): no process of a command is a `sleep`, so the harness never sees its marker jobs in /proc
 * @property {boolean} [bareNote] the truncation note says only "[output truncated]", not which limit (the cut exact)
 * @property {string} [stallOnContent] the answer whose content is this is written only in part (half of its
 *   line, no line break), then the runner hangs: a runner stalled mid-write, cut off by wirecheck's kill
 */

const LIMIT = 65536;
const GRACE_MS = 2000;
const DRAIN_MS = 500;
const SEPARATOR = '\n--- STDERR ---\n';
const BLOCKED = ['rm -rf /', ':(){ :|:& };:', 'mkfs', 'dd if=', '> /dev/sda', 'chmod -R 777 /'];
const NOBODY = 65534;
const KEEP_OUTPUT_BYTES = 384 * 1024 * 1024;
const LINE_LIMIT = 64 * 1024;
const isRoot = process.getuid?.() === 0;

function refusedBy(command, flaws) {
  if (flaws.noRefusal) return undefined;
  if (flaws.refuseSetsid && command.includes('setsid')) return 'setsid';
  if (flaws.refuseExport && command.includes('export')) return 'export';
  if (flaws.twoSubstringsCaseSensitive) return BLOCKED.slice(0, 2).find((b) => command.includes(b));
  if (flaws.blocklistEmptyEntry)
    return `${BLOCKED.join('\n')}\n`.split('\n').find((b) => command.includes(b));
  const collapse = (s) => s.toLowerCase().replace(/\s+/g, ' ');
  const strip = (s) => s.toLowerCase().replace(/\s+/g, '');
  return BLOCKED.find((b) => collapse(command).includes(collapse(b)) || strip(command).includes(strip(b)));
}

function bwrapWorks(uid) {
  const args = [
    '--unshare-pid',
    '--die-with-parent',
    '--bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    'true',
  ];
  try {
    const r = spawnSync('bwrap', args, { uid, gid: uid, stdio: 'ignore', timeout: 5000 });
    return r.status === 0;
  } catch {
    return false;
  }
}

/** Whether this machine lets the command's user make a user namespace whose root it is. */
function userNamespacesWork(uid) {
  try {
    const r = spawnSync('unshare', ['--user', '--map-root-user', 'id', '-u'], {
      uid,
      gid: uid,
      encoding: 'utf8',
      timeout: 5000,
    });
    return r.status === 0 && r.stdout.trim() === '0';
  } catch {
    return false;
  }
}

/** Output cut to the limit on a character boundary (or badly, per flaw), with the note. */
function truncate(bytes, flaws) {
  // A fatal decoder throws in the child's close handler: the runner dies there.
  if (flaws.strictUtf8) new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, LIMIT));
  const note = flaws.bareNote
    ? '\n[output truncated]'
    : flaws.otherWords
      ? '\n[output truncated: exceeded the 64 kilobyte limit]'
      : `\n[output truncated: exceeded the 64 KB limit (${LIMIT} bytes)]`;
  if (flaws.uncutInvalidUtf8 !== undefined && !isUtf8(bytes)) {
    const over = flaws.uncutInvalidUtf8 === 'noted' && bytes.length > LIMIT;
    return bytes.toString('utf8') + (over ? note : '');
  }
  if (flaws.cutByCharacters) {
    const text = bytes.toString('utf8');
    return text.length > LIMIT ? text.slice(0, LIMIT) + note : text;
  }
  const whole = flaws.noteAtLimit ? LIMIT - 1 : flaws.cutPastLimit ? LIMIT + 1 : LIMIT;
  if (bytes.length <= whole) return bytes.toString('utf8');
  if (flaws.replacementAtCut) return bytes.subarray(0, LIMIT).toString('utf8') + note;
  let end = LIMIT;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + note;
}

function assemble(out, err, flaws) {
  if (flaws.labelledOutput) {
    const part = (label, bytes) => (bytes.length > 0 ? [Buffer.from(label), bytes] : []);
    return Buffer.concat([...part('STDOUT:\n', out), ...part('\nSTDERR:\n', err)]);
  }
  if (err.length === 0) return out;
  if (flaws.noSeparator) return Buffer.concat([out, err]);
  if (out.length === 0 && !flaws.alwaysSeparator) return err;
  if (flaws.otherWords && out.at(-1) === 0x0a)
    return Buffer.concat([out, Buffer.from(SEPARATOR.slice(1)), err]);
  return Buffer.concat([out, Buffer.from(SEPARATOR), err]);
}

/**
 * A stream kept up to `max` bytes; the rest is read and dropped so the command never blocks.
 * `onBytes` hears how many bytes each read brought.
 */
function capture(stream, max, bytesPerS, onBytes = () => {}) {
  const chunks = [];
  let kept = 0;
  stream.on('data', (chunk) => {
    onBytes(chunk.length);
    if (bytesPerS !== undefined) {
      stream.pause();
      setTimeout(() => stream.resume(), (chunk.length / bytesPerS) * 1000);
    }
    if (kept >= max) return;
    const part = chunk.subarray(0, max - kept);
    chunks.push(part);
    kept += part.length;
  });
  return () => Buffer.concat(chunks);
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Run one command; resolves to {content, isError}. */
function execute(command, env, flaws, ctx) {
  const workdir = flaws.runInCwd ? process.cwd() : flaws.ignoreWorkdir ? ctx.ownWorkdir : env.workdir;
  try {
    mkdirSync(workdir, { recursive: true });
  } catch (e) {
    return Promise.resolve({
      content: `Process execution error: cannot create the working directory: ${e.message}`,
      isError: true,
    });
  }
  const uid = isRoot && !flaws.runAsRoot ? NOBODY : undefined;
  if (uid !== undefined) chownSync(workdir, uid, uid);
  const script = join(ctx.scripts, `cmd-${++ctx.count}.sh`);
  // The session's exports: read before the command, written back when its shell exits.
  const session = flaws.keepExports
    ? `[ -s '${ctx.exports}' ] && . '${ctx.exports}'\ntrap "export -p > '${ctx.exports}'" EXIT\n`
    : '';
  // An interactive shell (a pty-based runner's) ignores SIGTERM.
  const ignoreTerm = flaws.shellIgnoresTerm ? "trap '' TERM\n" : '';
  // A sleep that is not a process named sleep (coreutils, on every machine the tests run on); in
  // the foreground, timeout stays in the command's process group, as a sleep would.
  const ownSleep = flaws.ownSleep
    ? 'sleep() { timeout --foreground "$1" tail -f /dev/null; return 0; }\n'
    : '';
  writeFileSync(script, ignoreTerm + ownSleep + session + command, { mode: 0o644 });
  const ownEnv = {
    PATH: flaws.inheritPath ? (process.env.PATH ?? '') : '/usr/local/bin:/usr/bin:/bin',
    HOME: workdir,
    USER: flaws.inheritUser ? (process.env.USER ?? '') : 'runner',
    LANG: 'C.UTF-8',
  };
  const cmdEnv = flaws.inheritEnv ? { ...process.env, ...ownEnv } : ownEnv;
  const ids = uid === undefined ? {} : { uid, gid: uid };
  const sandboxed =
    ctx.bwrap &&
    !flaws.ignoreProcessGroup &&
    !flaws.keepJobs &&
    !flaws.killGroupsAtExit &&
    !flaws.noPidNamespace &&
    !flaws.signalAsExitZero &&
    !flaws.inheritEnv &&
    !flaws.waitForPipes;
  const asNamespaceRoot = flaws.rootInUserNamespace && ctx.userNamespaces;
  const shell = asNamespaceRoot ? ['unshare', '--user', '--map-root-user', '/bin/sh'] : ['/bin/sh'];
  const child = sandboxed
    ? spawn(
        'bwrap',
        [
          ...(asNamespaceRoot ? ['--unshare-user', '--uid', '0', '--gid', '0'] : []),
          '--unshare-pid',
          '--die-with-parent',
          '--new-session',
          '--info-fd',
          '3',
          '--bind',
          '/',
          '/',
          '--proc',
          '/proc',
          '--dev',
          '/dev',
          '--chdir',
          workdir,
          '--clearenv',
          ...Object.entries(cmdEnv).flatMap(([k, v]) => ['--setenv', k, v]),
          '--',
          '/bin/sh',
          script,
        ],
        { ...ids, detached: true, cwd: '/', env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
      )
    : spawn(shell[0], [...shell.slice(1), script], {
        ...ids,
        detached: !flaws.ignoreProcessGroup,
        cwd: workdir,
        env: cmdEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  if (flaws.killGroupsAtExit) ctx.groups.push(child.pid);
  let innerPid;
  child.stdio[3]?.on('data', (d) => {
    const m = /"child-pid":\s*(\d+)/.exec(d.toString());
    if (m) innerPid = Number(m[1]);
  });
  const max = flaws.keepOutput
    ? KEEP_OUTPUT_BYTES
    : flaws.cutByCharacters || flaws.uncutInvalidUtf8 !== undefined
      ? 16 * LIMIT
      : LIMIT + 4;
  let read = 0;
  let overflowed = false;
  const onBytes = (n) => {
    read += n;
    if (flaws.maxBufferBytes === undefined || overflowed || read <= flaws.maxBufferBytes) return;
    overflowed = true;
    signalAll('SIGKILL');
  };
  const out = capture(child.stdout, max, flaws.readBytesPerS, onBytes);
  const err = capture(child.stderr, max, flaws.readBytesPerS, onBytes);
  const signalAll = (signal) => {
    if (flaws.ignoreProcessGroup || flaws.killGroupsAtExit) {
      child.kill(signal);
      return;
    }
    if (innerPid !== undefined) killGroup(innerPid, signal);
    // bubblewrap itself turns SIGTERM into an immediate kill of the sandbox: spare it during the grace.
    if (signal === 'SIGKILL' || innerPid === undefined) killGroup(child.pid, signal);
  };
  let timedOut = false;
  let exitedBeforeTimeout = false;
  child.on('exit', () => {
    exitedBeforeTimeout = !timedOut;
  });
  let graceTimer;
  const timer = flaws.noTimeout
    ? undefined
    : setTimeout(() => {
        timedOut = true;
        if (flaws.killAtOnce) return signalAll('SIGKILL');
        signalAll('SIGTERM');
        if (flaws.termOnly) return;
        graceTimer = setTimeout(() => signalAll('SIGKILL'), flaws.graceMs ?? GRACE_MS);
      }, env.timeoutS * 1000);
  const closed = new Promise((resolve) => child.on('close', resolve));
  return new Promise((resolve) => {
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ content: `Process execution error: ${e.message}`, isError: true });
    });
    child.on(flaws.waitForPipes ? 'close' : 'exit', async (code, signal) => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (!flaws.ignoreProcessGroup && !flaws.keepJobs && !flaws.killGroupsAtExit) signalAll('SIGKILL');
      await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))]);
      child.stdout.destroy();
      child.stderr.destroy();
      const exitCode = code ?? (flaws.signalAsExitZero ? 0 : 128 + (signal === 'SIGKILL' ? 9 : 15));
      const stdout = flaws.failureStderrOnly && exitCode !== 0 ? Buffer.alloc(0) : out();
      // Held in memory or not, a result keeps no more than the limit.
      const clip = (bytes) => (flaws.keepOutput ? bytes.subarray(0, LIMIT + 4) : bytes);
      const text = truncate(assemble(clip(stdout), clip(err()), flaws), flaws);
      const blank = text.trim() === '';
      if (overflowed) {
        resolve({ content: 'Process execution error: stdout maxBuffer length exceeded', isError: true });
        return;
      }
      if (timedOut && !(flaws.pipeWaitNotTimedOut && exitedBeforeTimeout)) {
        const note = flaws.otherWords
          ? `Command killed: it exceeded the time limit of ${env.timeoutS} seconds.`
          : `Command timed out after ${env.timeoutS} seconds`;
        resolve({ content: blank || flaws.timeoutDropsOutput ? note : `${note}\n${text}`, isError: true });
        return;
      }
      const shown = flaws.trimTrailingNewlines ? text.replace(/\n+$/, '') : text;
      const blankText = flaws.otherWords
        ? `(exit status ${exitCode}; no stdout or stderr)`
        : flaws.blankQuotesCommand
          ? `$ ${command}\n(no output; exit code ${exitCode === 0 ? 0 : 1})`
          : `(no output; exit code ${exitCode})`;
      const framed =
        flaws.labelledExitCode && !blank
          ? `${shown}${shown.endsWith('\n') ? '' : '\n'}EXIT CODE:\n${exitCode}\n`
          : shown;
      const content = blank ? (flaws.emptyBlankText ? '' : blankText) : framed;
      resolve({ content, isError: exitCode !== 0 || (flaws.isErrorOnStderr === true && err().length > 0) });
    });
  });
}

function invalid(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: '', problem: 'the line is not JSON' };
  }
  const id = typeof value?.id === 'string' ? value.id : '';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { id, problem: 'not an object' };
  if (value.type !== 'tool_use' || value.name !== 'bash') return { id, problem: 'not a bash tool_use' };
  if (typeof value.input?.command !== 'string') return { id, problem: 'input.command is not a string' };
  return { id, block: value };
}

/** @param {Flaws} flaws */
export async function main(flaws = {}) {
  if (flaws.startupMs) await new Promise((resolve) => setTimeout(resolve, flaws.startupMs));
  const timeoutS =
    Number(process.env.WIRECHECK_TIMEOUT_S) > 0
      ? Number(process.env.WIRECHECK_TIMEOUT_S)
      : (flaws.defaultTimeoutS ?? 20);
  const env = { workdir: process.env.WIRECHECK_WORKDIR ?? join(tmpdir(), 'runner-workdir'), timeoutS };
  // Next to the working directory, so that whoever made that folder removes these too,
  // even when this runner is killed before its own clean-up.
  let parent = dirname(env.workdir);
  try {
    mkdirSync(parent, { recursive: true });
  } catch (e) {
    if (flaws.crashOnBadWorkdir) throw e;
    // The working directory cannot be created: each command will say so. Keep our files elsewhere.
    parent = tmpdir();
  }
  const scripts = mkdtempSync(join(parent, '.runner-scripts-'));
  chmodSync(scripts, 0o755);
  const ownWorkdir = mkdtempSync(join(parent, '.runner-own-'));
  if (isRoot) chmodSync(ownWorkdir, 0o777);
  // Writable by the commands' user (nobody, when started as root).
  const exports = join(scripts, 'exports.sh');
  writeFileSync(exports, '', { mode: 0o666 });
  chmodSync(exports, 0o666);
  const ctx = {
    scripts,
    exports,
    ownWorkdir,
    count: 0,
    groups: [],
    bwrap: bwrapWorks(isRoot && !flaws.runAsRoot ? NOBODY : undefined),
    userNamespaces:
      flaws.rootInUserNamespace && userNamespacesWork(isRoot && !flaws.runAsRoot ? NOBODY : undefined),
  };
  const held = [];
  let written = 0;
  let stalled = false;
  const write = ({ tool_use_id, content, is_error }) => {
    const result = flaws.longForms
      ? { tool_use_id, content: [{ type: 'text', text: content }], ...(is_error ? { is_error } : {}) }
      : { tool_use_id, content, is_error };
    const line = `${JSON.stringify({ type: 'tool_result', ...result })}\n`;
    if (flaws.stallOnContent !== undefined && content === flaws.stallOnContent) {
      process.stdout.write(line.slice(0, Math.floor(line.length / 2)));
      stalled = true;
      return;
    }
    if (flaws.bufferAnswers) held.push(line);
    else if (flaws.lateFirstAnswerMs !== undefined && written++ === 0)
      setTimeout(() => process.stdout.write(line), flaws.lateFirstAnswerMs);
    else process.stdout.write(line);
  };
  /** The answer to one input line, or undefined for none. */
  const answer = async (line) => {
    const { id, problem, block } = invalid(line);
    if (problem !== undefined) {
      if (flaws.dieOnBadLine) throw new Error(`invalid tool_use: ${problem}`);
      if (flaws.skipBadLines) return undefined;
      return { tool_use_id: id, content: `Invalid tool_use: ${problem}`, is_error: true };
    }
    const command = block.input.command;
    if (flaws.refuseCompound && /;|&&|\n/.test(command)) {
      return {
        tool_use_id: id,
        content: `error: compound commands are not supported: ${command}`,
        is_error: true,
      };
    }
    const blocked = refusedBy(command, flaws);
    if (blocked !== undefined) {
      const quote = flaws.refusalQuotesCommand ? ` in the command ${JSON.stringify(command)}` : '';
      return {
        tool_use_id: id,
        content: `Security violation: blocked pattern ${JSON.stringify(blocked)}${quote}`,
        is_error: true,
      };
    }
    // One shell per command: a restart has no session to discard but the kept exports.
    if (block.input.restart === true && flaws.keepExports && !flaws.restartKeepsExports)
      writeFileSync(ctx.exports, '');
    if (block.input.restart === true && flaws.silentRestart) return undefined;
    const { content, isError } = await execute(command, env, flaws, ctx);
    if (command === 'env' && flaws.malformedEnvAnswer === 'content-object')
      return { tool_use_id: id, content: { stdout: content }, is_error: isError };
    if (command === 'env' && flaws.malformedEnvAnswer === 'is-error-number')
      return { tool_use_id: id, content, is_error: isError ? 1 : 0 };
    return { tool_use_id: id, content, is_error: isError };
  };
  let latestId = '';
  let queue = Promise.resolve();
  try {
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (flaws.lineLimit && Buffer.byteLength(line) > LINE_LIMIT)
        throw new Error(`Separator is not found, and chunk exceed the limit (${LINE_LIMIT} bytes)`);
      if (flaws.latestId) {
        latestId = invalid(line).id;
        queue = queue.then(async () => {
          const result = await answer(line);
          if (result !== undefined) write({ ...result, tool_use_id: latestId });
        });
        continue;
      }
      const result = await answer(line);
      if (result !== undefined) write(result);
      // Hung for good (a timer keeps the process alive): only a kill ends it.
      if (stalled) await new Promise(() => setInterval(() => {}, 60_000));
    }
    await queue;
  } finally {
    // A buffered runner's answers go out as it exits (Python flushing at exit).
    if (held.length > 0 && flaws.heldWritesApartMs !== undefined) {
      for (const line of held.splice(0)) {
        process.stdout.write(line);
        await new Promise((r) => setTimeout(r, flaws.heldWritesApartMs));
      }
    }
    if (held.length > 0) process.stdout.write(held.join(''), () => process.exit(0));
    for (const pid of ctx.groups) killGroup(pid, 'SIGKILL');
    rmSync(scripts, { recursive: true, force: true });
    rmSync(ownWorkdir, { recursive: true, force: true });
    // exitDelayMs: a teardown that takes time once stdin ends (a container or a VM stopped).
    if (flaws.exitDelayMs !== undefined) await new Promise((r) => setTimeout(r, flaws.exitDelayMs));
  }
}
