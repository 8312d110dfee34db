import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import { matchesType } from '../../../src/suites/tool-server/rules.js';
import { arbitraryForSchema, argumentsArbitrary } from '../../../src/suites/tool-server/schema-arbitrary.js';

const TOOL: Tool = {
  name: 'mixed',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 's', maxLength: 5 },
      count: { type: 'integer', description: 'n', minimum: 3, maximum: 7 },
      ratio: { type: 'number', description: 'r' },
      flag: { type: 'boolean', description: 'b' },
      mode: { type: 'string', description: 'e', enum: ['a', 'b'] },
      tags: { type: 'array', description: 'a', items: { type: 'string' }, maxItems: 3 },
      nested: { type: 'object', description: 'o', properties: { x: { type: 'number' } }, required: ['x'] },
      delaySeconds: { type: 'number', description: 'd' },
    },
    required: ['text', 'count', 'nested'],
  },
};

describe('arguments generated from an inputSchema (property-based tools/call)', () => {
  test('every generated value has every required property, and each property has its type and bounds', () => {
    const props = TOOL.inputSchema.properties as Record<string, Record<string, unknown>>;
    fc.assert(
      fc.property(argumentsArbitrary(TOOL), (args) => {
        for (const key of TOOL.inputSchema.required ?? []) expect(args).toHaveProperty(key);
        for (const [key, value] of Object.entries(args)) {
          expect(matchesType(props[key]?.type, value)).toBe(true);
        }
        // maxLength counts code points (JSON Schema), not UTF-16 units.
        expect([...(args.text as string)].length).toBeLessThanOrEqual(5);
        expect(args.count).toBeGreaterThanOrEqual(3);
        expect(args.count).toBeLessThanOrEqual(7);
        if ('mode' in args) expect(['a', 'b']).toContain(args.mode);
        if ('tags' in args) expect((args.tags as unknown[]).length).toBeLessThanOrEqual(3);
        expect(typeof (args.nested as { x: unknown }).x).toBe('number');
        // A property named like a duration stays small, so a tool that waits as asked stays within budget.
        if ('delaySeconds' in args) expect(args.delaySeconds as number).toBeLessThanOrEqual(1);
      }),
      { seed: 7, numRuns: 100 },
    );
  });

  test('optional properties are sometimes present and sometimes absent', () => {
    const samples = fc.sample(argumentsArbitrary(TOOL), { seed: 3, numRuns: 100 });
    expect(samples.some((s) => 'flag' in s)).toBe(true);
    expect(samples.some((s) => !('flag' in s))).toBe(true);
  });

  test('a string schema gives the values of a fresh code-point string arbitrary, from one built arbitrary per bounds', () => {
    const schema = { type: 'string', minLength: 2, maxLength: 9 };
    const first = arbitraryForSchema(schema);
    expect(arbitraryForSchema({ ...schema })).toBe(first);
    expect(arbitraryForSchema({ ...schema, maxLength: 10 })).not.toBe(first);
    const fresh = fc.string({ minLength: 2, maxLength: 9, unit: 'binary' });
    expect(fc.sample(first, { seed: 42, numRuns: 50 })).toEqual(fc.sample(fresh, { seed: 42, numRuns: 50 }));
  });

  test('bounds from the target do not grow the arbitraries kept without end', () => {
    const first = arbitraryForSchema({ type: 'string', maxLength: 1000 });
    for (let n = 0; n < 64; n++) arbitraryForSchema({ type: 'string', maxLength: 2000 + n });
    // Past the bound the kept ones are dropped, so the first is built again.
    expect(arbitraryForSchema({ type: 'string', maxLength: 1000 })).not.toBe(first);
  });
});
