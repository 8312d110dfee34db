import { describe, expect, test } from 'vitest';
import {
  commandPreview,
  formatProgress,
  operatorInterventionLine,
  parseTranscript,
  transcriptLine,
} from '../../../src/clients/agent/index.js';

describe('progress', () => {
  test('a command is shown by its first line, cut at 72 characters', () => {
    expect(commandPreview('echo hi')).toBe('echo hi');
    expect(commandPreview('echo a\necho b')).toBe('echo a …');
    expect(commandPreview('x'.repeat(100))).toHaveLength(72);
  });

  test('a failing command shows how many failed in a row', () => {
    const line = formatProgress(
      {
        type: 'result',
        turn: 2,
        ran: true,
        consecutiveFailures: 2,
        durationMs: 3.2,
        result: { type: 'tool_result', tool_use_id: 'toolu_1', content: '', is_error: true },
      },
      'plain',
    );
    expect(line).toBe('agent:   toolu_1: failed (2 failures in a row), 3 ms\n');
    const named = formatProgress(
      {
        type: 'result',
        turn: 2,
        ran: true,
        command: 'false',
        consecutiveFailures: 1,
        durationMs: 1,
        result: { type: 'tool_result', tool_use_id: 'toolu_1', content: '', is_error: true },
      },
      'plain',
    );
    expect(named).toBe('agent:   $ false: failed (1 failure in a row), 1 ms\n');
  });

  test('the end of a breaker run says so, on a terminal in red', () => {
    const end = { type: 'end', reason: 'breaker', turns: 3, consecutiveFailures: 3 } as const;
    expect(formatProgress(end, 'plain')).toBe(
      'agent: halted: circuit breaker tripped after 3 failing commands in a row\n',
    );
    expect(formatProgress(end, 'tty')).toContain('\x1b[31m');
  });

  test('the operator line asks for intervention and names the transcript', () => {
    expect(operatorInterventionLine(3, 'run.jsonl')).toMatch(
      /^agent: operator intervention required: 3 consecutive commands failed.*\(transcript: run\.jsonl\)\n$/,
    );
  });
});

describe('transcript', () => {
  test('a line is one JSON record with a timestamp and reads back', () => {
    const line = transcriptLine({ type: 'prompt', text: 'hi' }, new Date('2026-11-21T12:00:00Z'));
    expect(line).toBe('{"at":"2026-11-21T12:00:00.000Z","type":"prompt","text":"hi"}\n');
    expect(parseTranscript(line + line)).toHaveLength(2);
  });

  test('a line that is not a record is named', () => {
    expect(() => parseTranscript('{"at":"2026-11-21T12:00:00.000Z","type":"prompt"}\n')).toThrow(
      /line 1: text/,
    );
  });
});
