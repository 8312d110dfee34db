// For the second-signal test: a process guarded as a real run is (processRunGuard), with a
// contained target that started an escapee (setsid), and libuv's thread pool blocked by an
// open() of a FIFO nobody reads (what a FIFO at a report path did). It prints `ready PID`
// (the escapee's) once set, and `stopping` when the first signal has stopped the "run". It
// holds the lock of the report directory REPORT_DIR, as a run writing there does.
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { processRunGuard } from '../../../dist/cli/context.js';
import { spawnContained } from '../../../dist/harness/containment/index.js';
import { lockReportDir } from '../../../dist/reporters/report-lock.js';

const [fifo, escapeeFile, reportDir] = process.argv.slice(2);
if (fifo === undefined || escapeeFile === undefined || reportDir === undefined)
  throw new Error('usage: pool-blocked-run.mjs FIFO ESCAPEE_FILE REPORT_DIR');
await lockReportDir(reportDir);
const guard = processRunGuard();
guard.signal.addEventListener('abort', () => process.stdout.write('stopping\n'));
spawnContained(`setsid sleep 300 & echo $! > '${escapeeFile}'; exec sleep 300`, {
  env: process.env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
// Never settles: no reader opens the FIFO, so a pool thread waits in open() for ever.
void open(fifo, 'w');
const escapee = await new Promise((resolve) => {
  const poll = setInterval(() => {
    let text = '';
    try {
      text = readFileSync(escapeeFile, 'utf8').trim();
    } catch {
      return;
    }
    if (text === '') return;
    clearInterval(poll);
    resolve(Number(text));
  }, 20);
});
process.stdout.write(`ready ${escapee}\n`);
setInterval(() => {}, 60_000);
