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

  test('properties named "constructor" or "__proto__" are generated like any other (the arbitrary threw)', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"toString":{"type":"integer"}},"required":["__proto__","toString","constructor"]}',
    );
    const tool: Tool = { name: 't', inputSchema: schema };
    for (const args of fc.sample(argumentsArbitrary(tool), { numRuns: 50, seed: 7 })) {
      const sent = JSON.parse(JSON.stringify(args));
      expect(Object.keys(sent).sort()).toEqual(['__proto__', 'constructor', 'toString']);
      expect(typeof Object.getOwnPropertyDescriptor(sent, '__proto__')?.value).toBe('string');
      expect(Number.isInteger(sent.toString)).toBe(true);
    }
  });

  test('optional properties are sometimes present and sometimes absent', () => {
    const samples = fc.sample(argumentsArbitrary(TOOL), { seed: 3, numRuns: 100 });
    expect(samples.some((s) => 'flag' in s)).toBe(true);
    expect(samples.some((s) => !('flag' in s))).toBe(true);
  });

  test("a string schema gives the values and counterexamples of fast-check's unit 'binary' strings", () => {
    for (const [minLength, maxLength] of [
      [2, 9],
      [0, 40],
    ] as const) {
      const built = arbitraryForSchema({ type: 'string', minLength, maxLength });
      const binary = fc.string({ minLength, maxLength, unit: 'binary' });
      for (const seed of [1, 42]) {
        expect(fc.sample(built, { seed, numRuns: 200 })).toEqual(fc.sample(binary, { seed, numRuns: 200 }));
      }
      // A string outside the Basic Multilingual Plane fails: both shrink to the same smallest one.
      const inPlaneZero = (s: unknown) => ![...(s as string)].some((c) => c.length > 1);
      const counterexample = (arb: fc.Arbitrary<unknown>) =>
        fc.check(fc.property(arb, inPlaneZero), { seed: 7, numRuns: 500 }).counterexample;
      expect(counterexample(built)).not.toBeNull();
      expect(counterexample(built)).toEqual(counterexample(binary));
    }
  });
});
