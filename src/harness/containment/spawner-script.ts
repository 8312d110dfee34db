/**
 * The spawner process (spawner.ts starts it with `node -e`): it starts each target the harness
 * asks for, hands the target's three pipes over the IPC channel, and reports the exit.
 *
 * Why a process of its own: Node.js forks the whole process to start a child (libuv uses
 * posix_spawn on macOS only). By the middle of `wirecheck all` the harness holds 200-270 MB;
 * a start from a Node.js process of 190 MB cost 12 ms of its CPU, of 330 MB 22-24 ms (page
 * tables copied, then every page it writes faulted back), and about 3 ms through this process,
 * which holds nothing (docs/performance.md).
 *
 * Each pipe's handle is taken from its stream before the first turn of the event loop, its
 * reading stopped, so no byte of the target's output is read here (a stream of a child that
 * exits is drained by Node.js): it all reaches the harness, which wraps the handle in a stream
 * of its own. The copy here is closed once sent, so the target sees the end of its stdin when
 * the harness ends it. The exit comes after the three handles (Node.js keeps the order of
 * messages sent behind a handle). When the harness goes, so does this process; a Ctrl-C is the
 * harness's to handle (it stops the run and writes the report), so this process ignores it.
 */
export const SPAWNER_SCRIPT = `'use strict';
const { spawn } = require('node:child_process');
const failure = (e) => ({ message: String(e && e.message), code: e && e.code, errno: e && e.errno, syscall: e && e.syscall, path: e && e.path });
const send = (message, handle, done) => {
  if (process.connected) process.send(message, handle, {}, () => done && done());
  else if (done) done();
};
const KINDS = ['stdin', 'stdout', 'stderr'];
process.on('disconnect', () => process.exit(0));
process.on('SIGINT', () => {});
process.on('message', (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, { env: m.env, cwd: m.cwd, detached: true, stdio: 'pipe' });
  } catch (e) {
    send({ id: m.id, kind: 'thrown', error: failure(e) });
    return;
  }
  child.on('error', (e) => { if (child.pid === undefined) send({ id: m.id, kind: 'failed', error: failure(e) }); });
  if (child.pid === undefined) return;
  const handles = child.stdio.map((stream) => {
    const handle = stream._handle;
    handle.reading = false;
    handle.readStop();
    stream._handle = null;
    stream.destroy();
    return handle;
  });
  handles.forEach((handle, i) => send({ id: m.id, kind: KINDS[i], pid: child.pid }, handle, () => handle.close()));
  child.on('exit', (code, signal) => send({ id: m.id, kind: 'exit', code, signal }));
});
`;
