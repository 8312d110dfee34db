#!/usr/bin/env node
// The official SDK's own tool-use loop (`client.beta.messages.toolRunner` of @anthropic-ai/sdk)
// running the SDK's own bash tool (`betaBashTool` of @anthropic-ai/sdk/tools/agent-toolset/node)
// as a wirecheck agent target (TARGETS.md, agent): the prompt on stdin, exit 0 when the loop ends,
// 3 when the circuit breaker trips. This is the adapter a user writes; what it passes and fails is
// in docs/agent-compatibility.md. The SDK's tool runs an unrestricted /bin/bash: run this inside a
// sandbox you control.
//
//   wirecheck test agent --agent "node examples/anthropic-sdk-agent.mjs"
//
// What the SDK leaves to its user, and the adapter adds:
// - the built-in shell tool: betaBashTool declares a custom tool named `bash` (a description and an
//   input schema); the adapter declares it as the built-in `{type: "bash_20250124", name: "bash"}`;
// - the end of the loop: the runner answers a call of a tool it does not have with an error result
//   and goes on asking; the loop ends when a reply holds no bash call;
// - the circuit breaker (3 consecutive failing commands), counted per command as they run;
// - the full history each turn (`thread: false`): by default the runner sends only new messages.
import { mkdirSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { betaBashTool } from '@anthropic-ai/sdk/tools/agent-toolset/node';

const EXIT = { done: 0, failure: 1, usage: 2, breaker: 3 };
const BREAKER_AT = 3;
const DEFAULT_MAX_TURNS = 10;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const prompt = Buffer.concat(chunks).toString('utf8').trim();
const apiKey = process.env.WIRECHECK_API_KEY;
const maxTurns = Number(process.env.WIRECHECK_MAX_TURNS ?? DEFAULT_MAX_TURNS);
if (prompt === '' || !apiKey || !Number.isInteger(maxTurns) || maxTurns < 1) {
  process.stderr.write(
    'agent: needs the prompt on stdin, WIRECHECK_API_KEY and a positive WIRECHECK_MAX_TURNS\n',
  );
  process.exit(EXIT.usage);
}

const workdir = process.env.WIRECHECK_WORKDIR ?? process.cwd();
mkdirSync(workdir, { recursive: true });
const sdkBash = betaBashTool({ workdir });

let failuresInARow = 0;
const tripped = () => failuresInARow >= BREAKER_AT;
// The SDK's bash tool with the built-in definition, counting failures as each command ends. Once the
// breaker has tripped, the rest of the reply's calls are not run: the loop halts before them.
const { description: _description, input_schema: _schema, ...runnable } = sdkBash;
const bash = {
  ...runnable,
  type: 'bash_20250124',
  name: 'bash',
  run: async (input, context) => {
    if (tripped()) throw new Error('not run: the circuit breaker has tripped');
    try {
      const output = await sdkBash.run(input, context);
      failuresInARow = 0;
      return output;
    } catch (error) {
      failuresInARow += 1;
      throw error;
    }
  },
};

const client = new Anthropic({ apiKey, baseURL: process.env.WIRECHECK_BASE_URL, maxRetries: 2 });
const runner = client.beta.messages.toolRunner({
  model: process.env.WIRECHECK_MODEL ?? 'claude-sonnet-5-5',
  max_tokens: 4096,
  messages: [{ role: 'user', content: prompt }],
  tools: [bash],
  max_iterations: maxTurns,
  thread: false,
});

let exitCode = EXIT.done;
try {
  for await (const message of runner) {
    const bashCalls = message.content.filter((block) => block.type === 'tool_use' && block.name === 'bash');
    if (bashCalls.length === 0) {
      const text = message.content.filter((block) => block.type === 'text').map((block) => block.text);
      if (text.length > 0) process.stdout.write(`${text.join('')}\n`);
      break;
    }
    // Run the calls here, in the loop body, so that a tripped breaker stops the loop before the
    // runner sends their results.
    await runner.generateToolResponse();
    if (tripped()) {
      process.stderr.write(
        `agent: ${BREAKER_AT} consecutive commands failed: circuit breaker tripped, operator intervention required\n`,
      );
      exitCode = EXIT.breaker;
      break;
    }
  }
} catch (error) {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = EXIT.failure;
} finally {
  sdkBash.close?.();
}
process.exit(exitCode);
