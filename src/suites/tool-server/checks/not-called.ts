import { type Check, CheckSkipped } from '../../../harness/check.js';
import type { ToolServerCtx } from '../context.js';
import { unreadNote } from '../listed-tools.js';
import { PrerequisiteFailed } from '../prerequisite.js';
import { toolArbitraries } from '../schema-arbitrary.js';
import { callableTools } from '../tool-choice.js';
import { CLAUSES } from './common.js';

/**
 * The tools --call-tools kept the checks from calling, named once per run: when some tool may
 * be called, the checks that call tools pass or fail on those alone and would otherwise leave
 * the rest unmentioned. Never a verdict on the server: it always skips.
 */
export const notCalledChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.tools.not-called',
    clause: `${CLAUSES.objects} (Tool); wirecheck's --call-tools (no tool called unless allowed)`,
    description:
      'Names the listed tools the checks called, with why each could be (read-only, named in --call-tools...) and how many calls it got, and the ones they did not call (not allowed by --call-tools, allowed but with a schema no generated arguments fit, or listed with an entry the Tool schema refuses, which tools.list-shape judges): a skip that says what the run did and did not exercise, never a failure.',
    level: 'must',
    basis: 'contract',
    rule: 'The contract of wirecheck with its user: no tool of a third-party server is called with generated arguments unless the user allowed it (--call-tools; by default read-only tools only); every tool called is named with why it could be and how often, and every tool left uncalled is named, so the user sees what the run did and did not exercise. Not a rule of the server: this check only ever skips.',
    // Its counts are the run's only once every check that calls a tool has ended: the suite runs
    // one check at a time today, and this keeps the counts whole if it ever runs them at once.
    schedule: 'last',
    async run(ctx) {
      const policy = await ctx.policy().catch((e: unknown) => {
        // Not a verdict on the server, not even under the list's shared cause: the must checks
        // that need the list fail for it, once.
        if (!(e instanceof PrerequisiteFailed)) throw e;
        throw new CheckSkipped(
          `no tool to name: ${e.what} failed (the checks that need the list report why)`,
        );
      });
      // Allowed, but never called with generated arguments: no arguments fit their schemas.
      const { leftOut } = toolArbitraries(callableTools(policy.allowed));
      const ungenerated =
        leftOut.length === 0
          ? ''
          : `; not called with generated arguments, since none could be made for their schemas: ${leftOut.slice(0, 5).join('; ')}${leftOut.length > 5 ? `; and ${leftOut.length - 5} more` : ''}`;
      const unread = unreadNote(policy.unread);
      const malformed = unread === undefined ? '' : `; not called: ${unread}`;
      // What was called, and why it could be: every other check has ended (schedule 'last'),
      // so the counts are the run's.
      const called = `${ctx.calls.calledNote()}; `;
      if (policy.refusedNote !== undefined)
        throw new CheckSkipped(`${called}${policy.refusedNote}${ungenerated}${malformed}`);
      if (policy.allowed.length === 0) {
        throw new CheckSkipped(
          unread === undefined
            ? 'no tool listed, or none read from the list (tools.list-shape judges it)'
            : `no tool called: ${unread}`,
        );
      }
      throw new CheckSkipped(
        unread === undefined
          ? `${called}every listed tool may be called${ungenerated}`
          : `${called}every well-formed listed tool may be called${ungenerated}${malformed}`,
      );
    },
  },
];
