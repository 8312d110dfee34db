#!/usr/bin/env node
// An agent built on LangChain's agent loop (`createAgent` of langchain with `ChatAnthropic` of
// @langchain/anthropic and its built-in bash tool, `tools.bash_20250124`) as a wirecheck agent
// target (TARGETS.md, agent): the prompt on stdin, exit 0 when the loop ends, 3 when the circuit
// breaker trips. This is the adapter a user writes; what it passes and fails is in
// docs/agent-compatibility.md. Commands run in an unrestricted bash: run this inside a sandbox you
// control.
//
//   wirecheck test agent --agent "node examples/langchain-agent.mjs"
//
// LangChain runs the loop (the history, one tool message per call, a tool's error as a tool
// message); the adapter brings what it leaves to its user: running the command (`execute`), the
// turn cap (its model-call limit), the end of the loop on a reply without a bash call, and the
// circuit breaker (3 consecutive failing commands), as middleware that ends the run.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { ChatAnthropic, tools } from '@langchain/anthropic';
import { createAgent, createMiddleware, modelCallLimitMiddleware } from 'langchain';

const EXIT = { done: 0, failure: 1, usage: 2, breaker: 3 };
const BREAKER_AT = 3;
const TIMEOUT_MS = 20_000;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const prompt = Buffer.concat(chunks).toString('utf8').trim();
const apiKey = process.env.WIRECHECK_API_KEY;
const maxTurns = Number(process.env.WIRECHECK_MAX_TURNS ?? 10);
if (prompt === '' || !apiKey || !Number.isInteger(maxTurns) || maxTurns < 1) {
  process.stderr.write(
    'agent: needs the prompt on stdin, WIRECHECK_API_KEY and a positive WIRECHECK_MAX_TURNS\n',
  );
  process.exit(EXIT.usage);
}
const workdir = process.env.WIRECHECK_WORKDIR ?? process.cwd();
mkdirSync(workdir, { recursive: true });

/** Runs `command` in bash in its own process group: stdout, then stderr after a separator, and the exit code. */
function runBash(command) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd: workdir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ text: `failed to start the command: ${error.message}`, code: 1 });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      let text = stdout;
      if (stderr !== '') text = stdout === '' ? stderr : `${stdout}\n--- STDERR ---\n${stderr}`;
      const status = code ?? -1;
      resolve({ text: text.trim() === '' ? `exit code ${status}, no output` : text, code: status });
    });
  });
}

let failuresInARow = 0;
const tripped = () => failuresInARow >= BREAKER_AT;
// LangChain runs a reply's calls at once: failures are counted in the order the commands end.
const bash = tools.bash_20250124({
  execute: async ({ command, restart }) => {
    if (tripped()) throw new Error('not run: the circuit breaker has tripped');
    // Each command runs in a fresh bash, so a restart has no session to discard.
    if (restart === true && !command) return 'bash session restarted';
    const { text, code } = await runBash(command ?? '');
    failuresInARow = code === 0 ? 0 : failuresInARow + 1;
    // A thrown error becomes a tool message with status "error" (sent without is_error).
    if (code !== 0) throw new Error(text);
    return text;
  },
});

// LangChain ends the loop on a reply with no tool call at all; the spec's loop ends on a reply
// without a bash call, and halts once the breaker has tripped.
const specStops = createMiddleware({
  name: 'SpecStops',
  afterModel: {
    canJumpTo: ['end'],
    hook: (state) => {
      const calls = state.messages.at(-1)?.tool_calls ?? [];
      return calls.some((call) => call.name === 'bash') ? undefined : { jumpTo: 'end' };
    },
  },
  beforeModel: {
    canJumpTo: ['end'],
    hook: () => (tripped() ? { jumpTo: 'end' } : undefined),
  },
});

const model = new ChatAnthropic({
  model: process.env.WIRECHECK_MODEL ?? 'claude-sonnet-5-5',
  apiKey,
  anthropicApiUrl: process.env.WIRECHECK_BASE_URL,
  maxTokens: 4096,
  maxRetries: 2,
});
const agent = createAgent({
  model,
  tools: [bash],
  middleware: [modelCallLimitMiddleware({ runLimit: maxTurns, exitBehavior: 'end' }), specStops],
});

try {
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: prompt }] },
    // A turn is a model step, a tool step and the two middlewares' before and after steps.
    { recursionLimit: maxTurns * 10 + 10 },
  );
  if (tripped()) {
    process.stderr.write(
      `agent: ${BREAKER_AT} consecutive commands failed: circuit breaker tripped, operator intervention required\n`,
    );
    process.exit(EXIT.breaker);
  }
  const last = result.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : (last?.text ?? '');
  if (text !== '') process.stdout.write(`${text}\n`);
  process.exit(EXIT.done);
} catch (error) {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(EXIT.failure);
}
