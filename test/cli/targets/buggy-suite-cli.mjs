// The wirecheck CLI (as bin/wirecheck.js runs it) with one registered suite, `buggy`, whose
// checks have the bugs a suite can have: the second leaves a promise rejected with nobody
// listening (or, with `timer`, throws from a timer) and then waits, or (with `caught`) throws
// the HarnessBug it caught itself in; the first and last are fine. For the harness-error test:
// the run must stop with exit 2 and a report.
import { main } from '../../../dist/cli/main.js';
import { HarnessBug } from '../../../dist/harness/check.js';
import { registerSuite, SUITES } from '../../../dist/suites/registry.js';

const BUGS = ['timer', 'caught', 'rejection'];
const bug = BUGS.find((b) => process.argv.includes(b)) ?? 'rejection';
const argv = process.argv.filter((a) => !BUGS.includes(a));

const check = (id, run) => ({ id, clause: 'Events rule 1', description: `check ${id}`, level: 'must', run });
SUITES.splice(0);
registerSuite({
  suite: {
    name: 'buggy',
    description: 'a suite with a bug',
    checks: [
      check('buggy.fine', async () => {}),
      check('buggy.bug', async () => {
        if (bug === 'caught') throw new HarnessBug('a list of the suite left this check out');
        if (bug === 'timer') {
          setTimeout(() => {
            throw new Error('thrown from a timer of the suite');
          }, 10);
        } else {
          Promise.reject(new Error('a promise of the suite nobody awaited'));
        }
        await new Promise((resolve) => setTimeout(resolve, 60_000));
      }),
      check('buggy.after', async () => {}),
    ],
    describeTarget: () => 'nothing',
    targetArgs: () => [],
    open: async () => ({ close: async () => {} }),
  },
  targetOptions: [],
  targetFromOptions: () => ({}),
});
process.exitCode = await main(argv);
