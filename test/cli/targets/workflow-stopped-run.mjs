// For the workflow-commands signal tests: the output of `wirecheck test` stopped by
// workflowCommandGuard under GitHub Actions, in a process that never ends by itself. It
// writes a target's workflow command through the guarded output and prints `ready` once
// set. Guarded as a real run is (processRunGuard), it prints `stopping` when the first signal
// has stopped the "run", and the second ends it by endBySignal, where no 'exit' handler runs;
// with the argument `unguarded`, nothing handles the signals but the guard of the output.
import { processContext, processRunGuard } from '../../../dist/cli/context.js';
import { workflowCommandGuard } from '../../../dist/cli/workflow-commands.js';

const guard = workflowCommandGuard(processContext({}));
guard.stopFor('test');
if (process.argv[2] !== 'unguarded') {
  const run = processRunGuard();
  run.signal.addEventListener('abort', () => guard.ctx.stdout.write('stopping\n'));
}
guard.ctx.stderr.write('::error::from the target\n');
guard.ctx.stdout.write('ready\n');
setInterval(() => {}, 60_000);
