import { type Check, CheckSkipped } from '../../../harness/check.js';
import { followUps, type MessagesServiceCtx } from '../context.js';
import { followStream, partialJsonViolations, toolUseStarts } from '../frame-rules.js';
import { bashInputViolations, bufferedMessage, stopReasonViolations } from '../reply-rules.js';
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
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const messages = await sharedMessages(ctx);
      failOn(
        messages.flatMap((m) => within(m.label, stopReasonViolations(m.reply))),
        'stop_reason and tool_use blocks disagree',
      );
      if (!messages.some((m) => hasToolUse(m.reply))) {
        throw new CheckSkipped(`${NO_TOOL_USE}; only replies without tool_use were checked`);
      }
    },
  },
  {
    id: 'messages-service.tools.partial-json',
    clause: 'Events rule 3',
    description:
      'The partial_json fragments of a tool_use block, concatenated, parse into a JSON object when its content_block_stop arrives.',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const reply = await ctx.shared.toolStreamed();
      if (reply.status !== 200) {
        throw new CheckSkipped(
          `the tool stream got HTTP ${reply.status}; see messages-service.http.stream-content-type`,
        );
      }
      if (toolUseStarts(reply.frames).length === 0) throw new CheckSkipped(`${NO_TOOL_USE} in a stream`);
      const verdict = partialJsonViolations(reply.frames, followStream(reply.frames));
      failOn(within('tool stream', verdict.violations, reply), 'tool input fragments (Events rule 3)');
      if (verdict.undetermined !== undefined) {
        throw new CheckSkipped(`${verdict.undetermined}; see messages-service.stream.reduces-to-message`);
      }
    },
  },
  {
    id: 'messages-service.tools.bash-input',
    clause: 'Resources: Built-in shell tool definition (input)',
    description:
      'The input of a bash tool_use block has a string `command` (and optionally a boolean `restart`).',
    level: 'must',
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      const messages = (await sharedMessages(ctx)).filter((m) =>
        m.reply.content.some((b) => b.type === 'tool_use' && b.name === 'bash'),
      );
      if (messages.length === 0) throw new CheckSkipped(`${NO_TOOL_USE} for the bash tool`);
      failOn(
        messages.flatMap((m) => within(m.label, bashInputViolations(m.reply))),
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
    timeoutMs: NETWORK_BUDGET_MS,
    async run(ctx) {
      await followUpCheck(
        ctx,
        ['echo wirecheck', 'echo two'],
        'a user turn with two tool_result blocks must be accepted',
      );
    },
  },
];
