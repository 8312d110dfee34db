import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { DEFAULT_AGENT_MODEL } from '../../../src/clients/agent/options.js';
import { DEFAULT_MODEL } from '../../../src/protocol/messages/default-model.js';
import { DEFAULT_MODEL as SERVICE_SUITE_MODEL } from '../../../src/suites/messages-service/target.js';

// The official SDK (a pinned dev dependency) lists the models it knows and those near their
// end of life; a default that the real API stops serving would fail every user who names none.
const sdkDir = createRequire(import.meta.url)
  .resolve('@anthropic-ai/sdk')
  .replace(/index\.js$/, '');

describe('the default model', () => {
  test('is one the official SDK names, and not on its deprecation table', () => {
    const declarations = readFileSync(`${sdkDir}resources/messages/messages.d.ts`, 'utf8');
    const union = declarations.match(/export type Model = ([^;]+);/)?.[1] ?? '';
    const known = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]);
    expect(known.length).toBeGreaterThan(5);
    expect(known).toContain(DEFAULT_MODEL);
    const { DEPRECATED_MODELS } = createRequire(import.meta.url)(
      `${sdkDir}internal/data/deprecated-models.js`,
    ) as {
      DEPRECATED_MODELS: Record<string, string>;
    };
    expect(Object.keys(DEPRECATED_MODELS)).toContain('claude-sonnet-4-5');
    expect(Object.keys(DEPRECATED_MODELS)).not.toContain(DEFAULT_MODEL);
  });

  test('the messages-service suite and the reference agent name the same one', () => {
    expect(SERVICE_SUITE_MODEL).toBe(DEFAULT_MODEL);
    expect(DEFAULT_AGENT_MODEL).toBe(DEFAULT_MODEL);
  });
});
