import type { Check, Suite } from '../../src/harness/check.js';

/** The fields of a must check the harness tests do not vary: add an `id` and a `run`. */
export const TOY_CHECK = {
  clause: 'c',
  description: 'd',
  level: 'must',
  basis: 'spec',
  rule: 'r',
  timeoutMs: 5000,
} as const;

/**
 * A suite of `check` and a check after it that passes (`toy.after`: whether the run went on),
 * against no target; `scrubbed` is hidden in every result text, as a suite's scrubber hides
 * what its target was given.
 */
export function toySuite(check: Check<object>, scrubbed?: string): Suite<object, object> {
  return {
    name: 'toy',
    description: 'toy',
    describeTarget: () => 'toy',
    targetArgs: () => [],
    open: async () => ({ close: async () => {} }),
    checks: [check, { ...TOY_CHECK, id: 'toy.after', run: async () => {} }],
    ...(scrubbed === undefined
      ? {}
      : { scrubber: () => (t: string) => t.replaceAll(scrubbed, '[redacted]') }),
  };
}
