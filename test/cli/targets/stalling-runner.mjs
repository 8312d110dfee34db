// A runner target for the interrupt test: it appends `start <pid>` to the file named by its
// first argument, answers every `echo WORDS` command as a conforming runner would (what a
// preflight sends), and at the first other command appends `stall <pid>` and never answers
// or exits: a target that is slow in the middle of a check.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const pidFile = process.argv[2];
if (pidFile === undefined) throw new Error('usage: stalling-runner.mjs PID_FILE');
appendFileSync(pidFile, `start ${process.pid}\n`);

let stalled = false;
const stall = () => {
  stalled = true;
  appendFileSync(pidFile, `stall ${process.pid}\n`);
  setInterval(() => {}, 60_000);
};

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (stalled) return;
  let block;
  try {
    block = JSON.parse(line);
  } catch {
    return stall();
  }
  const command = String(block?.input?.command ?? '');
  const echo = /^echo ([A-Za-z0-9_. -]*)$/.exec(command);
  if (echo === null) return stall();
  const result = { type: 'tool_result', tool_use_id: block.id, content: `${echo[1]}\n`, is_error: false };
  process.stdout.write(`${JSON.stringify(result)}\n`);
});
lines.on('close', () => {
  if (!stalled) process.exit(0);
});
