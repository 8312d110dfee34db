#!/usr/bin/env node
// An agent built on TanStack AI's agent loop (`chat` of @tanstack/ai with the Anthropic adapter of
// @tanstack/ai-anthropic and its built-in bash tool, `bashTool` of @tanstack/ai-anthropic/tools)
// as a wirecheck agent target (TARGETS.md, agent): the prompt on stdin, exit 0 when the loop ends,
// 3 when the circuit breaker trips. This is the adapter a user writes; what it passes and fails is
// in docs/agent-compatibility.md. Commands run in an unrestricted bash: run this inside a sandbox
// you control.
//
//   wirecheck test agent --agent "node examples/tanstack-ai-agent.mjs"
//
// TanStack AI runs the loop (the history, one tool result per call, a thrown error as the
// result); the adapter brings what it leaves to its user: running the command (the tool's
// `execute`), the turn cap (`maxIterations`), the end of the loop on a reply without a bash call
// and the circuit breaker (3 consecutive failing commands), as middleware that stops the loop.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chat, EventType, maxIterations } from '@tanstack/ai';
import { createAnthropicChat } from '@tanstack/ai-anthropic';
import { bashTool } from '@tanstack/ai-anthropic/tools';

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
// The built-in tool as TanStack AI declares it, with the execute that runs it here.
const bash = {
  ...bashTool({ type: 'bash_20250124', name: 'bash' }),
  execute: async ({ command, restart }) => {
    if (tripped()) throw new Error('not run: the circuit breaker has tripped');
    // Each command runs in a fresh bash, so a restart has no session to discard.
    if (restart === true && !command) return 'bash session restarted';
    const { text, code } = await runBash(command ?? '');
    failuresInARow = code === 0 ? 0 : failuresInARow + 1;
    // A thrown error becomes the tool's result, as {"error": message}, sent without is_error.
    if (code !== 0) throw new Error(text);
    return text;
  },
};

// TanStack AI answers every tool call of a reply and asks again; the spec's loop ends on a reply
// without a bash call, and halts once the breaker has tripped.
const specStops = {
  name: 'spec-stops',
  onShouldContinue: (_ctx, state) => {
    if (tripped()) return false;
    const reply = state.messages.findLast((m) => m.role === 'assistant');
    return (reply?.toolCalls ?? []).some((call) => call.function.name === 'bash');
  },
};

const adapter = createAnthropicChat(process.env.WIRECHECK_MODEL ?? 'claude-sonnet-5-5', apiKey, {
  baseURL: process.env.WIRECHECK_BASE_URL,
  maxRetries: 2,
});

let text = '';
let failed;
try {
  const stream = chat({
    adapter,
    messages: [{ role: 'user', content: prompt }],
    tools: [bash],
    agentLoopStrategy: maxIterations(maxTurns),
    middleware: [specStops],
    modelOptions: { max_tokens: 4096 },
  });
  for await (const event of stream) {
    if (event.type === EventType.TEXT_MESSAGE_CONTENT) text += event.delta;
    if (event.type === EventType.RUN_ERROR) failed = event.message;
  }
} catch (error) {
  failed = error instanceof Error ? error.message : String(error);
}
if (tripped()) {
  process.stderr.write(
    `agent: ${BREAKER_AT} consecutive commands failed: circuit breaker tripped, operator intervention required\n`,
  );
  process.exit(EXIT.breaker);
}
if (failed !== undefined) {
  process.stderr.write(`agent: ${failed}\n`);
  process.exit(EXIT.failure);
}
if (text !== '') process.stdout.write(`${text}\n`);
process.exit(EXIT.done);
