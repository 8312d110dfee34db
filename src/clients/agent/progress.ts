import { toolUsesOf } from './conversation.js';
import type { AgentEvent } from './events.js';

/** `tty`: a terminal (colours, a status line redrawn in place); `plain`: one line per step. */
export type ProgressStyle = 'tty' | 'plain';

const ESC = '\x1b[';
const CLEAR_LINE = `\r${ESC}K`;
const dim = (s: string) => `${ESC}2m${s}${ESC}0m`;
const bold = (s: string) => `${ESC}1m${s}${ESC}0m`;
const red = (s: string) => `${ESC}31m${s}${ESC}0m`;
const green = (s: string) => `${ESC}32m${s}${ESC}0m`;
const yellow = (s: string) => `${ESC}33m${s}${ESC}0m`;

/** The first line of a command, at most 72 characters, for a progress line. */
export function commandPreview(command: string): string {
  const lines = command.split(/\r\n|\r|\n/);
  const first = lines[0] ?? '';
  const more = lines.length > 1;
  if (first.length > 72) return `${first.slice(0, 71)}…`;
  return more ? `${first} …` : first;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The text shown for one event of the loop (empty when the event shows nothing). On a
 * terminal, "waiting" lines are drawn without a newline and replaced by the next event's
 * line; elsewhere every line is complete and free of escape codes, so a log stays readable.
 */
export function formatProgress(event: AgentEvent, style: ProgressStyle): string {
  const tty = style === 'tty';
  switch (event.type) {
    case 'prompt':
      return '';
    case 'request':
      return tty
        ? dim(`… turn ${event.turn}/${event.maxTurns}: waiting for the model`)
        : `agent: turn ${event.turn}/${event.maxTurns}: request sent\n`;
    case 'reply': {
      const uses = toolUsesOf(event.message).length;
      const what = uses === 0 ? 'answered without a tool call' : `asked for ${plural(uses, 'tool call')}`;
      return tty
        ? `${CLEAR_LINE}${bold(`turn ${event.turn}`)} ${dim('▸')} ${what}\n`
        : `agent: turn ${event.turn}: ${what}\n`;
    }
    case 'command': {
      const { command, restart } = event.toolUse.input;
      const shown =
        command === undefined
          ? 'restart the shell session'
          : `$ ${commandPreview(command)}${restart ? ' (after a restart)' : ''}`;
      return tty ? dim(`  … ${shown}`) : '';
    }
    case 'result': {
      const { result, ran } = event;
      const ms = `${Math.round(event.durationMs)} ms`;
      const outcome = !ran
        ? `answered without running (${result.content})`
        : result.is_error
          ? `failed (${plural(event.consecutiveFailures, 'failure')} in a row)`
          : 'ok';
      const what = event.command === undefined ? result.tool_use_id : `$ ${commandPreview(event.command)}`;
      if (!tty) return `agent:   ${what}: ${outcome}, ${ms}\n`;
      const mark = result.is_error ? red('✗') : green('✓');
      return `${CLEAR_LINE}  ${mark} ${what} ${dim(`${outcome}, ${ms}`)}\n`;
    }
    case 'end': {
      const text =
        event.reason === 'done'
          ? `done after ${plural(event.turns, 'turn')}`
          : event.reason === 'turn-cap'
            ? `stopped: the turn cap was reached after ${plural(event.turns, 'request')}`
            : `halted: circuit breaker tripped after ${plural(event.consecutiveFailures, 'failing command')} in a row`;
      if (!tty) return `agent: ${text}\n`;
      return `${CLEAR_LINE}${event.reason === 'breaker' ? red(bold(text)) : event.reason === 'turn-cap' ? yellow(text) : green(text)}\n`;
    }
    case 'error':
      return tty ? `${CLEAR_LINE}${red(`error: ${event.message}`)}\n` : `agent: error: ${event.message}\n`;
  }
}

/**
 * The stderr line the target contract asks for when the breaker trips (Errors: "halt the
 * agent and request human intervention"), printed whatever the progress style.
 */
export function operatorInterventionLine(consecutiveFailures: number, transcriptPath?: string): string {
  const where = transcriptPath === undefined ? '' : ` (transcript: ${transcriptPath})`;
  return `agent: operator intervention required: ${consecutiveFailures} consecutive commands failed, so the agent halted; review the commands and the working directory before running it again${where}\n`;
}
