import { type Check, NotExercised } from '../../../harness/check.js';
import { mayCutOutput } from '../../../protocol/messages/index.js';
import { followUps, type MessagesServiceCtx } from '../context.js';
import { followStream, partialJsonViolations, toolUseStarts } from '../frame-rules.js';
import { sendBuffered } from '../http.js';
import { bashInputViolations, bufferedMessage, stopReasonViolations, unseenEnd } from '../reply-rules.js';
import { toolRequest } from '../requests.js';
import { failOn, within } from '../violations.js';
import { hasToolUse, NETWORK_BUDGET_MS, NO_TOOL_USE, sharedMessages } from './common.js';

async function followUpCheck(
  ctx: MessagesServiceCtx,
  commands: readonly string[],
  rule: string,
): Promise<void> {
  const reply = await followUps(ctx, commands);
  const { message, violations } = bufferedMessage(reply);
  failOn(within('follow-up reply', [...violations, ...(message ? stopReasonViolations(message) : [])]), rule);
}

export const toolChecks: Check<MessagesServiceCtx>[] = [
  {
    id: 'messages-service.tools.stop-reason',
    clause: 'What the service does 3',
    description:
      'A reply holding a tool_use block ends with stop reason tool_use, buffered and streamed; a reply without one does not.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (What the service does 3): when the assistant turn holds a tool_use block the reply ends with stop reason tool_use (a reply cut by max_tokens excepted), and stop reason tool_use means a tool_use block is there. Every messages service. A stop reason the spec does not list is not judged.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const messages = await sharedMessages(ctx);
      failOn(
        messages.flatMap((m) => within(m.label, stopReasonViolations(m.reply))),
        'stop_reason and tool_use blocks disagree',
      );
      if (!messages.some((m) => hasToolUse(m.reply))) {
        throw new NotExercised(`${NO_TOOL_USE}; only replies without tool_use were checked`);
      }
    },
  },
  {
    id: 'messages-service.tools.partial-json',
    clause: 'Events rule 3',
    description:
      'The partial_json fragments of a tool_use block, concatenated, parse into a JSON object when its content_block_stop arrives.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Events rule 3): the partial_json fragments of one tool_use block, concatenated, form the JSON input, parsed once at its content_block_stop. Every messages service. An input sent whole in content_block_start with no fragment text is not there for a consumer following the rule; a block whose fragments join to nothing (an empty input) shows nothing of it. A reply whose stop reason may end it mid-output (max_tokens; refusal, model_context_window_exceeded or another reason not known to end a reply whole) may stop a tool input mid-JSON: not judged; nor is a tool input an error event cut, while the blocks a stream closed before its error event are judged.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.toolStreamed();
      if (reply.status !== 200) {
        throw new NotExercised(
          `the tool stream got HTTP ${reply.status}; see messages-service.http.stream-content-type`,
        );
      }
      if (toolUseStarts(reply.frames).length === 0) {
        // A stream still busy after the retries comes back to be judged up to its error event.
        const end = unseenEnd(reply);
        throw new NotExercised(
          end === undefined
            ? `${NO_TOOL_USE} in a stream`
            : `the tool stream was ${end} before any tool_use block began`,
        );
      }
      const verdict = partialJsonViolations(reply.frames, followStream(reply.frames), reply.cutByWirecheck);
      failOn(within('tool stream', verdict.violations, reply), 'tool input fragments (Events rule 3)');
      if (verdict.undetermined !== undefined) {
        throw new NotExercised(verdict.undetermined);
      }
    },
  },
  {
    id: 'messages-service.tools.bash-input',
    clause: 'Resources: Built-in shell tool definition (input)',
    description:
      'The input of a bash tool_use block has a string `command` (and optionally a boolean `restart`).',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Built-in shell tool): the input of a bash tool_use block has a string `command` and optionally a boolean `restart`. Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const messages = (await sharedMessages(ctx)).filter((m) =>
        m.reply.content.some((b) => b.type === 'tool_use' && b.name === 'bash'),
      );
      if (messages.length === 0) throw new NotExercised(`${NO_TOOL_USE} for the bash tool`);
      const whole = messages.filter((m) => !mayCutOutput(m.reply.stop_reason));
      if (whole.length === 0) {
        throw new NotExercised(
          `every reply with a bash tool_use block was cut short by its stop reason (${messages.map((m) => `${m.label}: ${m.reply.stop_reason}`).join(', ')}), so its input may be incomplete`,
        );
      }
      failOn(
        whole.flatMap((m) => within(m.label, bashInputViolations(m.reply))),
        'bash tool input',
      );
    },
  },
  {
    id: 'messages-service.tools.follow-up',
    clause: 'Endpoints: POST /v1/messages (follow-up turn)',
    description:
      'A follow-up turn (earlier turns, the assistant turn with a tool_use block, a user turn with the matching tool_result, tools resent) gets HTTP 200 and a message.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Endpoints: follow-up turn): the earlier turns, the assistant turn with the tool_use block and a user turn with the matching tool_result, tools sent again, are a valid request answered with a message. Every messages service.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      await followUpCheck(ctx, ['echo wirecheck'], 'a tool_result follow-up must be accepted');
    },
  },
  {
    id: 'messages-service.tools.two-results',
    clause: 'Resources: Content blocks (tool_result)',
    description: 'One user turn may hold several tool_result blocks, one per tool_use block answered.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec (Content blocks): one user turn may hold several tool_result blocks, one per tool_use answered. Every messages service accepts such a turn.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      await followUpCheck(
        ctx,
        ['echo wirecheck', 'echo two'],
        'a user turn with two tool_result blocks must be accepted',
      );
    },
  },

  {
    id: 'messages-service.tools.bash-20241022',
    clause: 'Resources: Built-in shell tool definition (type bash_20250124 or bash_20241022); Versioning',
    description:
      'A request offering the shell tool as type bash_20241022 is served like one offering bash_20250124.',
    level: 'must',
    basis: 'spec',
    rule: 'The spec allows both dated type strings of the built-in shell tool, `bash_20250124` and `bash_20241022`. Every messages service accepts a request that offers either.',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx, env) {
      const body = toolRequest(ctx.model, false, { type: 'bash_20241022', name: 'bash' });
      const reply = await sendBuffered(ctx.client, JSON.stringify(body), { signal: env.signal });
      const { message, violations } = bufferedMessage(reply);
      failOn(
        within('reply to a request offering bash_20241022', [
          ...violations,
          ...(message ? stopReasonViolations(message) : []),
        ]),
        'the older shell tool type must be accepted',
      );
    },
  },
];
