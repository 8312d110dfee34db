// The official SDK's tool-use loop as its documentation shows it, with nothing added: the SDK's
// bash tool, `toolRunner` with its defaults (a service-held thread, the tool's own definition, no
// circuit breaker) and `runUntilDone()`. docs/agent-compatibility.md shows what that breaks;
// examples/anthropic-sdk-agent.mjs is the adapter that conforms.
import { mkdirSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { betaBashTool } from '@anthropic-ai/sdk/tools/agent-toolset/node';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const workdir = process.env.WIRECHECK_WORKDIR ?? process.cwd();
mkdirSync(workdir, { recursive: true });
const bash = betaBashTool({ workdir });
const client = new Anthropic({
  apiKey: process.env.WIRECHECK_API_KEY,
  baseURL: process.env.WIRECHECK_BASE_URL,
});
try {
  const final = await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 4096,
    messages: [{ role: 'user', content: Buffer.concat(chunks).toString('utf8') }],
    tools: [bash],
    max_iterations: Number(process.env.WIRECHECK_MAX_TURNS ?? 10),
  });
  for (const block of final.content) if (block.type === 'text') process.stdout.write(`${block.text}\n`);
} catch (error) {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  bash.close?.();
}
