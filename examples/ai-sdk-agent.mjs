#!/usr/bin/env node
// An agent built on the Vercel AI SDK's tool loop (`generateText` with the provider's built-in
// bash tool, `anthropic.tools.bash_20250124`) as a wirecheck agent target (TARGETS.md, agent):
// the prompt on stdin, exit 0 when the loop ends, 3 when the circuit breaker trips. This is the
// adapter a user writes; what it passes is in docs/agent-compatibility.md. Commands run in an
// unrestricted bash: run this inside a sandbox you control.
//
//   wirecheck test agent --agent "node examples/ai-sdk-agent.mjs"
//
// The AI SDK runs the loop (the history, one tool result per call, the step cap); the adapter
// brings what it leaves to its user: running the command (`execute`), the end of the loop on a
// reply without a bash call, and the circuit breaker (3 consecutive failing commands), as stop
// conditions and by running no call once the breaker trips.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { anthropic, createAnthropic } from '@ai-sdk/anthropic';
import { generateText, isStepCount } from 'ai';

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
const bash = anthropic.tools.bash_20250124({
  execute: async ({ command, restart }) => {
    if (tripped()) throw new Error('not run: the circuit breaker has tripped');
    // Each command runs in a fresh bash, so a restart has no session to discard.
    if (restart === true && !command) return 'bash session restarted';
    const { text, code } = await runBash(command ?? '');
    failuresInARow = code === 0 ? 0 : failuresInARow + 1;
    // A thrown error becomes a tool result with is_error true.
    if (code !== 0) throw new Error(text);
    return text;
  },
});

const provider = createAnthropic({ apiKey, baseURL: `${process.env.WIRECHECK_BASE_URL}/v1` });
try {
  const result = await generateText({
    model: provider(process.env.WIRECHECK_MODEL ?? 'claude-sonnet-5-5'),
    maxOutputTokens: 4096,
    prompt,
    tools: { bash },
    toolCallConcurrency: 1,
    // The AI SDK answers a call of a tool it does not have with an error result and goes on; the
    // spec's loop ends on a reply without a bash call.
    stopWhen: [
      isStepCount(maxTurns),
      () => tripped(),
      ({ steps }) => !steps.at(-1).toolCalls.some((call) => call.toolName === 'bash'),
    ],
    maxRetries: 2,
  });
  if (tripped()) {
    process.stderr.write(
      `agent: ${BREAKER_AT} consecutive commands failed: circuit breaker tripped, operator intervention required\n`,
    );
    process.exit(EXIT.breaker);
  }
  if (result.text !== '') process.stdout.write(`${result.text}\n`);
  process.exit(EXIT.done);
} catch (error) {
  process.stderr.write(`agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(EXIT.failure);
}
