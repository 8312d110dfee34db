import { openSync } from 'node:fs';
import { main } from './base.mjs';

// Not a flaw: a conforming client slow to start. `slow-start.mjs MS [MARKER]`: it reaches the
// server MS ms after its process began, whatever the load: its own loading is spent inside
// that time, so what load can add is only the little it does after the wait (spawning the
// server, its first message). With MARKER, the run that creates that file starts at once (a
// suite's first run, its preflight) and every later run takes the MS.
const [startupArg, marker] = process.argv.slice(2);
const startupMs = Number(startupArg);
if (!Number.isFinite(startupMs) || startupMs < 0) {
  throw new Error(
    `slow-start.mjs: expected a start-up in ms as its first argument, got ${JSON.stringify(startupArg)}`,
  );
}

/** Whether this is the first run to come (it creates `marker`; 'wx' lets only one do so). */
function firstRun() {
  try {
    openSync(marker, 'wx');
    return true;
  } catch (e) {
    if (e.code === 'EEXIST') return false;
    throw e;
  }
}

if (marker === undefined || !firstRun()) {
  // fetch's implementation loads on first use: loaded here, it is part of the start-up.
  new Response('');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startupMs - performance.now())));
}
await main();
