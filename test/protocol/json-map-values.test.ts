import { describe, expect, it } from 'vitest';
import { mapJsonValue } from '../../src/protocol/json/map-values.js';

describe('mapJsonValue', () => {
  it('maps every string value and keeps keys, numbers, booleans, null and the shape', () => {
    const value = { a: 'x', n: 1, b: true, z: null, list: ['y', 2, { c: 'w' }] };
    expect(mapJsonValue(value, { string: (s) => s.toUpperCase() })).toEqual({
      a: 'X',
      n: 1,
      b: true,
      z: null,
      list: ['Y', 2, { c: 'W' }],
    });
    expect(value.a).toBe('x');
  });

  it('maps a bare string, and leaves a bare number', () => {
    expect(mapJsonValue('ab', { string: (s) => `${s}!` })).toBe('ab!');
    expect(mapJsonValue(3, { string: () => 'no' })).toBe(3);
  });

  it('maps keys when asked, and replaces a member unwalked by its key as it arrived', () => {
    const out = mapJsonValue(
      { secretKey: { inner: 'kept' }, plain: { inner: 'walked' } },
      {
        string: (s) => `<${s}>`,
        key: (k) => k.toLowerCase(),
        member: (k, v) => (k === 'secretKey' ? { value: typeof v } : undefined),
      },
    );
    expect(out).toEqual({ secretkey: 'object', plain: { inner: '<walked>' } });
  });

  it('walks a value nested deeper than the call stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = mapJsonValue(deep, { string: () => 'mapped' });
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    expect(out).toBe('mapped');
  });
});

describe('mapJsonValue keeps what JSON.parse made', () => {
  it('keeps the order of keys at every level', () => {
    const out = mapJsonValue(
      { a: 1, b: { c: 1, d: 2, e: [{ f: 'x', g: 'y' }] }, h: 'z' },
      { string: (s) => s },
    );
    expect(JSON.stringify(out)).toBe('{"a":1,"b":{"c":1,"d":2,"e":[{"f":"x","g":"y"}]},"h":"z"}');
  });

  it('keeps a replaced member in its place among walked ones', () => {
    const out = mapJsonValue(
      { a: 'x', token: 's', b: 'y' },
      { string: (s) => s.toUpperCase(), member: (k) => (k === 'token' ? { value: '[r]' } : undefined) },
    );
    expect(JSON.stringify(out)).toBe('{"a":"X","token":"[r]","b":"Y"}');
  });

  it('two keys mapped to one name: one member, in the first place, with the last value', () => {
    const out = mapJsonValue(
      { A: 'first', b: 1, a: 'last' },
      { string: (s) => s, key: (k) => k.toLowerCase() },
    );
    expect(JSON.stringify(out)).toBe('{"a":"last","b":1}');
  });

  it('keeps a __proto__ member as a member, not as the copy’s prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":"yes"},"a":"x"}') as object;
    const out = mapJsonValue(value, { string: (s) => `${s}!` }) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes!"},"a":"x!"}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
