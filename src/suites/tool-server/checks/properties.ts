import fc from 'fast-check';
import {
  type Check,
  type CheckEnv,
  CheckFailure,
  CheckSkipped,
  NotExercised,
} from '../../../harness/check.js';
import { harnessBugOf } from '../../../harness/programmer-error.js';
import { checkProperty, recordJudgedRuns } from '../../../harness/property.js';
import { METHODS } from '../../../protocol/mcp/index.js';
import { savedCallRefusal } from '../call-gate.js';
import { noToolMessage } from '../call-policy.js';
import type { Channel } from '../channel.js';
import type { ToolServerCtx } from '../context.js';
import { rpcEvidence } from '../evidence.js';
import { cancelRequest, exchange } from '../rpc.js';
import { callResultProblems } from '../rules.js';
import { toolArbitraries } from '../schema-arbitrary.js';
import { excuseSilence, noteExchange } from '../silence.js';
import { LATE_REPLY_FACTOR, silenceMs } from '../slow-call.js';
import { callableTools } from '../tool-choice.js';
import { brief, CLAUSES } from './common.js';

/** Wall-clock budget of the property; past it the remaining runs pass without calling. */
const PROPERTY_MS = 40_000;

const NO_CALLS = 'no call with generated arguments was sent within the property budget';

interface Silent {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Set when the session answered nothing after it, not even a ping (it was then closed). */
  readonly busy?: string;
}

/** Calls with generated arguments: the must part throws, the calls that got no reply are kept for the should part. */
function generatedCalls(ctx: ToolServerCtx, env: CheckEnv) {
  return ctx.shared('generated-calls', async () => {
    const policy = await ctx.policy();
    const tools = callableTools(policy.allowed);
    if (tools.length === 0) {
      return {
        skipped:
          policy.allowed.length === 0
            ? noToolMessage(policy, 'calls with generated arguments')
            : 'every tool that may be called looks slow or networked',
        failure: undefined,
        silent: [] as Silent[],
        calls: 0,
        answered: 0,
      };
    }
    const silent: Silent[] = [];
    let calls = 0;
    let answered = 0;
    const cap = env.full ? (ctx.options.maxFullCalls ?? 400) : (ctx.options.maxCalls ?? 40);
    const deadline = performance.now() + (ctx.options.generatedCallsMs ?? PROPERTY_MS);
    // Cases judged before the limit ran out (the later ones return at once): the runs reported.
    let judged = 0;
    let outOfTime = false;
    // One session for the whole property; a fresh one when a call killed it, so shrinking
    // replays each candidate against a live server.
    let channel: Channel | undefined;
    const live = async (): Promise<Channel> => {
      if (channel === undefined || channel.gone() !== undefined) {
        await channel?.close();
        channel = await ctx.connect(`generated-${calls}`);
      }
      return channel;
    };
    const { arbitraries, leftOut } = toolArbitraries(tools);
    if (arbitraries.length === 0) {
      return {
        skipped: `no arguments could be generated for any tool that may be called: ${leftOut.slice(0, 5).join('; ')}${leftOut.length > 5 ? `; and ${leftOut.length - 5} more` : ''}`,
        failure: undefined,
        silent: [] as Silent[],
        calls: 0,
        answered: 0,
      };
    }
    // An index, not fc.oneof(...arbitraries): the tools of a server listing 150,000 of them,
    // spread into a call, overflow the stack.
    const arbitrary = fc.integer({ min: 0, max: arbitraries.length - 1 }).chain((i) => arbitraries[i]!);
    let failure: unknown;
    try {
      await checkProperty(
        env,
        arbitrary,
        async (value) => {
          // A replayed case is the file's value, not one generated from the allowed tools: a
          // file never widens what the user allowed, so it is asked before anything is sent.
          const refused = savedCallRefusal(policy, value);
          if (refused !== undefined) throw new CheckSkipped(refused);
          const { tool, args } = value;
          if (performance.now() > deadline) {
            outOfTime = true;
            return;
          }
          if (!outOfTime) judged++;
          const ch = await live();
          calls += 1;
          const ex = await exchange(ch, METHODS.toolsCall, { name: tool, arguments: args }, ctx.replyMs);
          let reply = ex.reply;
          if (reply === undefined) {
            const ping = await exchange(ch, METHODS.ping, undefined, ctx.replyMs);
            if (ping.reply === undefined) {
              // Both silent: a server that died, or one (or a harness) on a busy machine that
              // is slow to answer. Only a server that stays silent much longer is judged dead.
              const late = await ch.peer.wait(ping.id, LATE_REPLY_FACTOR * ctx.replyMs, () => ch.gone());
              if (late.reply === undefined && ch.gone() !== undefined) {
                throw new CheckFailure(
                  `${tool} with ${JSON.stringify(args).slice(0, 300)} got no reply and the server stopped answering (${ex.why}; ping: ${ping.why}; nothing for ${LATE_REPLY_FACTOR} times as long again: ${late.why})`,
                  'a result or a JSON-RPC error, and the server still serving',
                  'silence',
                  rpcEvidence(`${tool} with generated arguments`, [ch]),
                );
              }
              if (late.reply === undefined) {
                // Alive (process running, stream open) but silent: a server that serves one
                // request at a time may be inside a long call (a tool asked to wait 30 s).
                // JSON-RPC sets no deadline, so this is the should check's to report; the next
                // call gets a fresh session (over stdio, a new process).
                await cancelRequest(ch, ex.id);
                const waited = silenceMs(ctx.replyMs);
                silent.push({
                  tool,
                  args,
                  busy: `the session then answered nothing, not even a ping, for ${waited} ms, though it did not end`,
                });
                excuseSilence(ch);
                await ch.close();
                channel = undefined;
                return;
              }
              // Alive: the late reply counts as an answer for the silence watch (a server that
              // serves one request at a time, busy with a slow tool, is not gone), and the
              // call's own reply may have come meanwhile (before the ping's, in order).
              noteExchange(ch, METHODS.ping, { ...ping, reply: late.reply });
              reply = (await ch.peer.wait(ex.id, 0, () => undefined)).reply;
            }
          }
          if (reply === undefined) {
            // Alive but silent: tell the server to stop, and remember it for the should check.
            await cancelRequest(ch, ex.id);
            silent.push({ tool, args });
            return;
          }
          answered += 1;
          if ('result' in reply) {
            const problems = callResultProblems(reply.result);
            if (problems.length > 0) {
              throw new CheckFailure(
                `${tool} with ${JSON.stringify(args).slice(0, 300)} answered a malformed result: ${problems.join('; ')}`,
                'content: [{type, text?}]',
                brief(reply),
                rpcEvidence(`${tool} with generated arguments`, [ch], `"id":${ex.id}`),
              );
            }
          }
        },
        { runs: Math.max(1, Math.min(env.runs, cap)) },
      ).catch((e: unknown) => {
        failure = e;
      });
      if (outOfTime) recordJudgedRuns(env, judged);
      return { skipped: undefined, failure, silent, calls, answered };
    } finally {
      await channel?.close();
    }
  });
}

export const propertyChecks: Check<ToolServerCtx>[] = [
  {
    id: 'tool-server.tools.generated-arguments',
    clause: `${CLAUSES.objects} (Tool call result); ${CLAUSES.errors} (the handler raises an error)`,
    description:
      "Calls of each listed tool with arguments generated from its inputSchema (required and optional properties) are answered with a well-formed result or a JSON-RPC error, and the session does not end (one left silent but alive, as a server busy with a long call is, is generated-arguments-answered's to report).",
    level: 'must',
    basis: 'spec',
    rule: 'The spec: a tool call is answered with a call result (content items) or an error, and JSON-RPC 2.0 gives every request a response; a server that dies on some arguments leaves the call unanswered. Every tool server (only tools --call-tools allows are called).',
    timeoutMs: 90_000,
    async run(ctx, env) {
      const run = await generatedCalls(ctx, env);
      if (run.skipped !== undefined) throw new CheckSkipped(run.skipped);
      if (run.failure !== undefined) throw run.failure;
      if (run.calls === 0) throw new NotExercised(NO_CALLS);
      if (run.answered === 0) {
        throw new NotExercised(
          `no call with generated arguments was answered, so none could be judged (tools.generated-arguments-answered reports the silence): ${run.silent[0]?.busy ?? `every one got no reply within ${ctx.replyMs} ms`}`,
        );
      }
    },
  },
  {
    id: 'tool-server.tools.generated-arguments-answered',
    clause: `${CLAUSES.objects} (Tool call result)`,
    description:
      'Every call with generated arguments is answered within the reply budget (should: a tool may legitimately run long, as a tool asked to wait does).',
    level: 'should',
    basis: 'protocol-should',
    rule: "JSON-RPC 2.0 gives every request a response but sets no time; a tool may legitimately run longer than the suite's reply budget (one asked to wait does), so a slow answer is a warning.",
    timeoutMs: 90_000,
    async run(ctx, env) {
      const run = await generatedCalls(ctx, env);
      if (run.skipped !== undefined) throw new CheckSkipped(run.skipped);
      if (run.calls === 0) throw new NotExercised(NO_CALLS);
      // A call after which the session fell silent is the one worth showing.
      const first = run.silent.find((s) => s.busy !== undefined) ?? run.silent[0];
      if (first !== undefined) {
        throw new CheckFailure(
          `${run.silent.length} of ${run.calls} calls got no reply within ${ctx.replyMs} ms, e.g. ${first.tool} with ${JSON.stringify(first.args).slice(0, 300)}${first.busy === undefined ? '' : ` (${first.busy})`}`,
          'a reply to every call',
          run.silent.map((s) => `${s.tool} ${JSON.stringify(s.args).slice(0, 200)}`).join('\n'),
        );
      }
      // The calls stopped at a failure the must check reports (a server that died or a
      // malformed result): not every call was seen through, so "all answered" is not shown.
      if (run.failure !== undefined) {
        // A bug of wirecheck's met in the calls is the run's to stop on, whichever check reads it first.
        const bug = harnessBugOf(run.failure);
        if (bug !== undefined) throw bug;
        throw new NotExercised(
          `the calls stopped after ${run.calls} at the failure tool-server.tools.generated-arguments reports`,
        );
      }
    },
  },
];
