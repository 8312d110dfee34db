import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IsolationLevel } from '../../runner/command-line.js';
import { RunnerStartError } from '../../runner/runner.js';
import { MessagesClient } from '../messages/client.js';
import { AbortError, MessagesClientError } from '../messages/errors.js';
import { textOfMessage } from './conversation.js';
import type { AgentEvent } from './events.js';
import { type RunBash, runAgentLoop } from './loop.js';
import { type AgentFlags, AgentSettingError, resolveAgentSettings } from './options.js';
import { formatProgress, operatorInterventionLine } from './progress.js';
import { referenceBashRunner } from './reference-runner.js';
import { TranscriptWriter } from './transcript.js';

/** Exit statuses of the agent command (TARGETS.md, agent; 2 and 130 by CLI custom). */
export const AGENT_EXIT = {
  /** The loop ended: no bash tool_use left, or the turn cap reached. */
  done: 0,
  /** A request failed (no key, connection, HTTP status, broken stream). */
  failure: 1,
  /** Bad stdin or settings, or no isolation for the bash runner; nothing was sent. */
  usage: 2,
  /** The circuit breaker tripped. */
  breaker: 3,
  /** Interrupted (SIGINT / SIGTERM). */
  interrupted: 130,
} as const;

/** A bash runner for one agent run: commands run in `workdir`. */
export interface BashRunnerSession {
  runBash: RunBash;
  close(): Promise<void>;
  /** One line on how commands are confined, shown when the run starts. */
  description?: string;
}
export type BashRunnerFactory = (settings: {
  workdir: string;
  /** Per-command timeout; absent: the runner's default. */
  timeoutS: number | undefined;
  /** How commands are confined (`auto`: an isolating level or none at all). */
  isolation: IsolationLevel | 'auto';
}) => BashRunnerSession | Promise<BashRunnerSession>;

export interface AgentCommandIo {
  /** The user's prompt, plain text. */
  stdin: string;
  env: Readonly<Record<string, string | undefined>>;
  flags?: AgentFlags;
  /** The final answer's text. */
  stdout: { write(chunk: string): unknown };
  /** Progress (redrawn in place when a TTY, plain lines otherwise) and the operator line. */
  stderr: { write(chunk: string): unknown; readonly isTTY?: boolean };
  signal?: AbortSignal;
  /** How commands run (default: the reference runner of src/runner, isolated as strongly as the host allows). */
  bashRunner?: BashRunnerFactory;
}

/**
 * The `agent` target command (TARGETS.md): the prompt on stdin; the tool-use loop against
 * WIRECHECK_BASE_URL with WIRECHECK_API_KEY; commands run by `bashRunner` in
 * WIRECHECK_WORKDIR (a fresh temporary folder when unset); exit 0 when the loop ends,
 * 3 when the circuit breaker trips, with the operator-intervention line on stderr.
 */
export async function runAgentCommand(io: AgentCommandIo): Promise<number> {
  const say = (line: string) => io.stderr.write(`agent: ${line}\n`);
  let settings: ReturnType<typeof resolveAgentSettings>;
  try {
    settings = resolveAgentSettings(io.flags ?? {}, io.env);
  } catch (error) {
    if (!(error instanceof AgentSettingError)) throw error;
    say(error.message);
    return AGENT_EXIT.usage;
  }
  const prompt = io.stdin.trim();
  if (prompt === '') {
    say('stdin must hold the prompt (plain text); it was empty');
    return AGENT_EXIT.usage;
  }
  let client: MessagesClient;
  try {
    client = new MessagesClient({
      env: io.env,
      ...(settings.maxRetries !== undefined && { maxRetries: settings.maxRetries }),
      ...(settings.idleTimeoutMs !== undefined && { idleTimeoutMs: settings.idleTimeoutMs }),
    });
  } catch (error) {
    if (error instanceof MessagesClientError) {
      say(error.message);
      return AGENT_EXIT.failure;
    }
    say((error as Error).message);
    return AGENT_EXIT.usage;
  }

  const workdir = settings.workdir ?? mkdtempSync(join(tmpdir(), 'wirecheck-agent-'));
  if (settings.workdir === undefined) say(`working directory: ${workdir}`);
  let transcript: TranscriptWriter | undefined;
  try {
    if (settings.transcript !== undefined) transcript = new TranscriptWriter(settings.transcript);
  } catch (error) {
    say(`cannot write the transcript ${settings.transcript}: ${(error as Error).message}`);
    return AGENT_EXIT.usage;
  }
  const style = io.stderr.isTTY === true ? 'tty' : 'plain';
  const onEvent = (event: AgentEvent) => {
    transcript?.write(event);
    const text = formatProgress(event, style);
    if (text !== '') io.stderr.write(text);
  };

  let runner: BashRunnerSession;
  try {
    runner = await (io.bashRunner ?? referenceBashRunner)({
      workdir,
      timeoutS: settings.commandTimeoutS,
      isolation: settings.isolation,
    });
  } catch (error) {
    transcript?.close();
    say(`the bash runner could not start: ${(error as Error).message}`);
    // No isolation that works, and none not chosen: the agent refuses, as a usage problem.
    return error instanceof RunnerStartError ? AGENT_EXIT.usage : AGENT_EXIT.failure;
  }
  if (runner.description !== undefined) say(`runner: ${runner.description}`);
  try {
    const outcome = await runAgentLoop(prompt, {
      client,
      runBash: runner.runBash,
      model: settings.model,
      maxTokens: settings.maxTokens,
      maxTurns: settings.maxTurns,
      stream: settings.stream,
      onEvent,
      ...(io.signal && { signal: io.signal }),
    });
    const answer = textOfMessage(outcome.lastMessage);
    if (answer !== '') io.stdout.write(`${answer}\n`);
    if (outcome.reason !== 'breaker') return AGENT_EXIT.done;
    io.stderr.write(operatorInterventionLine(outcome.consecutiveFailures, settings.transcript));
    return AGENT_EXIT.breaker;
  } catch (error) {
    // The loop has reported the error as an event already (progress and transcript).
    if (error instanceof AbortError || io.signal?.aborted === true) return AGENT_EXIT.interrupted;
    if (error instanceof MessagesClientError) return AGENT_EXIT.failure;
    throw error;
  } finally {
    await runner.close();
    transcript?.close();
  }
}
