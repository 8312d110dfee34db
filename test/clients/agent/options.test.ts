import { describe, expect, test } from 'vitest';
import { AgentSettingError, resolveAgentSettings } from '../../../src/clients/agent/index.js';

describe('agent settings (TARGETS.md, agent: env as messages-client plus WIRECHECK_MAX_TURNS and WIRECHECK_WORKDIR)', () => {
  test('defaults: turn cap 10, buffered, no transcript, no workdir (a temporary one is made)', () => {
    expect(resolveAgentSettings({}, {})).toMatchObject({
      maxTurns: 10,
      stream: false,
      transcript: undefined,
      workdir: undefined,
      maxTokens: 4096,
    });
  });

  test('the variables set the cap, the workdir, the transcript and the command timeout', () => {
    const s = resolveAgentSettings(
      {},
      {
        WIRECHECK_MAX_TURNS: '4',
        WIRECHECK_WORKDIR: '/tmp/w',
        WIRECHECK_TRANSCRIPT: 't.jsonl',
        WIRECHECK_TIMEOUT_S: '1.5',
      },
    );
    expect(s).toMatchObject({ maxTurns: 4, workdir: '/tmp/w', transcript: 't.jsonl', commandTimeoutS: 1.5 });
  });

  test('a flag wins over its variable', () => {
    expect(resolveAgentSettings({ maxTurns: '2' }, { WIRECHECK_MAX_TURNS: '7' }).maxTurns).toBe(2);
  });

  test('an empty variable counts as unset', () => {
    expect(resolveAgentSettings({}, { WIRECHECK_MAX_TURNS: ' ' }).maxTurns).toBe(10);
  });

  test.each(['0', '-1', '2.5', '0x10', '1e3', 'ten'])('WIRECHECK_MAX_TURNS=%s is refused', (value) => {
    expect(() => resolveAgentSettings({}, { WIRECHECK_MAX_TURNS: value })).toThrow(AgentSettingError);
  });

  test('a bad flag is refused naming the flag (the variable it overrides is named when it is the source)', () => {
    expect(() => resolveAgentSettings({ maxTurns: '0' }, {})).toThrow(
      '--max-turns must be an integer >= 1, got "0"',
    );
    expect(() => resolveAgentSettings({ maxTokens: 'x' }, {})).toThrow(
      '--max-tokens must be an integer >= 1',
    );
    expect(() => resolveAgentSettings({ commandTimeout: '-5' }, {})).toThrow(
      '--command-timeout must be a number of seconds in (0, 86400], got "-5"',
    );
    expect(() => resolveAgentSettings({ isolation: 'chroot' }, {})).toThrow('--isolation must be one of');
  });

  test('isolation is auto unless --isolation or WIRECHECK_ISOLATION names a level (the flag wins)', () => {
    expect(resolveAgentSettings({}, {}).isolation).toBe('auto');
    expect(resolveAgentSettings({}, { WIRECHECK_ISOLATION: 'none' }).isolation).toBe('none');
    expect(resolveAgentSettings({ isolation: 'bwrap' }, { WIRECHECK_ISOLATION: 'none' }).isolation).toBe(
      'bwrap',
    );
  });

  test('an unknown isolation level is refused, naming the levels', () => {
    expect(() => resolveAgentSettings({ isolation: 'chroot' }, {})).toThrow(/auto, bwrap, util-linux, none/);
  });
});
