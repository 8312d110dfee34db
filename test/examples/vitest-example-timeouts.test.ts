import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * docs/ci.md offers examples/vitest/ as a template for a user's project, where vitest's
 * default test timeout is 5 s, not this repository's 30 s (vitest.config.ts): a plain test
 * there that runs a suite times out. Every test the examples declare themselves names its timeout
 * (describeSuite's tests set theirs from the checks' budgets).
 */
const EXAMPLES = resolve(import.meta.dirname, '../../examples/vitest');

test('every test of examples/vitest/ gives its own timeout', () => {
  const bare: string[] = [];
  for (const name of readdirSync(EXAMPLES).filter((f) => /\.(test|spec)\.[cm]?[jt]s$/.test(f))) {
    const text = readFileSync(join(EXAMPLES, name), 'utf8');
    for (const m of text.matchAll(/^\s*(?:test|it)(?:\.\w+)*\(\s*(['"`])(.*?)\1\s*,\s*([^\n]*)/gm)) {
      // The form docs/ci.md shows: test(name, { timeout }, fn).
      if (!/^\{[^}]*\btimeout\s*:/.test(m[3] ?? ''))
        bare.push(`${name}: test '${m[2]}' gives no { timeout }`);
    }
  }
  expect(bare).toEqual([]);
});
