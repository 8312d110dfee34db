import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/harness/errors.js';
import { createAgentSuite } from '../../src/suites/agent/index.js';
import * as agent from '../../src/suites/agent/target.js';
import { createMessagesClientSuite } from '../../src/suites/messages-client/index.js';
import * as messagesClient from '../../src/suites/messages-client/target.js';
import { requiredStringOption, stringOption } from '../../src/suites/target-options.js';
import { createToolClientSuite } from '../../src/suites/tool-client/index.js';
import * as toolClient from '../../src/suites/tool-client/target.js';
import { createToolServerSuite } from '../../src/suites/tool-server/index.js';

describe('target option helpers', () => {
  test('a missing or empty required option is a usage error naming the flag', () => {
    expect(requiredStringOption({ baseUrl: 'http://x' }, 'baseUrl', '--base-url <url>')).toBe('http://x');
    for (const opts of [{}, { baseUrl: '' }, { baseUrl: true }]) {
      expect(() => requiredStringOption(opts, 'baseUrl', '--base-url <url>')).toThrow(UsageError);
    }
    expect(() => requiredStringOption({}, 'baseUrl', '--base-url <url>')).toThrow(
      'this suite needs --base-url <url>',
    );
  });

  test('an optional option falls back to its default', () => {
    expect(stringOption({}, 'apiKeyEnv', 'WIRECHECK_API_KEY')).toBe('WIRECHECK_API_KEY');
    expect(stringOption({ apiKeyEnv: 'K' }, 'apiKeyEnv', 'WIRECHECK_API_KEY')).toBe('K');
    expect(stringOption({}, 'model')).toBeUndefined();
  });
});

describe('--start-timeout of the client suites: how long a run may take to reach its mock', () => {
  const suites = [
    {
      name: 'messages-client',
      flag: '--client',
      key: 'client',
      m: messagesClient,
      parse: messagesClient.messagesClientTargetFromOptions,
    },
    {
      name: 'tool-client',
      flag: '--client',
      key: 'client',
      m: toolClient,
      parse: toolClient.toolClientTargetFromOptions,
    },
    { name: 'agent', flag: '--agent', key: 'agent', m: agent, parse: agent.agentTargetFromOptions },
  ] as const;

  test.each(suites)(
    '$name: taken in seconds, shown in the description, kept in the reproduce line',
    (suite) => {
      const target = suite.parse({ [suite.key]: 'java -jar client.jar', startTimeout: '45' });
      expect(target).toMatchObject({ startTimeoutMs: 45_000 });
      const args = (suite.m.targetArgs as (t: unknown) => string[])(target);
      expect(args.slice(0, 2)).toEqual([suite.flag, 'java -jar client.jar']);
      expect(args.slice(-2)).toEqual(['--start-timeout', '45']);
      expect((suite.m.describeTarget as (t: unknown) => string)(target)).toContain('--start-timeout 45');
      const plain = suite.parse({ [suite.key]: 'c' });
      expect(plain).not.toHaveProperty('startTimeoutMs');
      expect((suite.m.targetArgs as (t: unknown) => string[])(plain)).not.toContain('--start-timeout');
      for (const bad of ['0', '-3', 'soon', '601']) {
        expect(() => suite.parse({ [suite.key]: 'c', startTimeout: bad })).toThrow(/--start-timeout takes/);
      }
    },
  );
});

describe("budgetScale: a check's budget grows with the start allowance", () => {
  test('client suites: the start allowance over the case budget, 1 without one or below it', () => {
    const messages = createMessagesClientSuite();
    expect(messages.budgetScale?.({ client: 'c' })).toBe(1);
    expect(messages.budgetScale?.({ client: 'c', startTimeoutMs: 10_000 })).toBe(1);
    expect(messages.budgetScale?.({ client: 'c', startTimeoutMs: 60_000 })).toBe(3);
    expect(createToolClientSuite().budgetScale?.({ client: 'c', startTimeoutMs: 60_000 })).toBe(4);
    expect(createAgentSuite().budgetScale?.({ agent: 'a', startTimeoutMs: 180_000 })).toBe(3);
  });

  test('tool-server: over stdio the first reply budget with the allowance over the default one; 1 over HTTP', () => {
    const suite = createToolServerSuite();
    expect(suite.budgetScale?.({ kind: 'stdio', command: 's', startTimeoutMs: 45_000 })).toBe(5);
    expect(suite.budgetScale?.({ kind: 'stdio', command: 's' })).toBe(1);
    expect(suite.budgetScale?.({ kind: 'sse', url: 'http://127.0.0.1:1/sse', startTimeoutMs: 45_000 })).toBe(
      1,
    );
  });

  test('tool-server: with --start, opening may take --start-timeout more than the usual allowance', () => {
    const suite = createToolServerSuite();
    const url = 'http://127.0.0.1:1/sse';
    expect(suite.openMs?.({ kind: 'sse', url, start: 'srv', startTimeoutMs: 100_000 })).toBe(160_000);
    expect(suite.openMs?.({ kind: 'sse', url, start: 'srv' })).toBeUndefined();
    expect(suite.openMs?.({ kind: 'sse', url, startTimeoutMs: 100_000 })).toBeUndefined();
  });
});
