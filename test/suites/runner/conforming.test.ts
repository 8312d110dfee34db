import { expect, test } from 'vitest';
import { notPassed, pidNamespaceAvailable, runAgainst, runnerCommand } from './helpers.js';

// A second runner written from the spec alone (runners/base.mjs without flaws): a check
// that fails it would be a false failure, the worst bug a conformance harness can have.
test('an independent runner that follows the spec passes every quick check', async () => {
  const result = await runAgainst(runnerCommand('conforming'));
  const messages = notPassed(result);
  expect(messages.filter((m) => m.includes(': fail: '))).toEqual([]);
  // Without a PID namespace (no usable bubblewrap) the runner has only its process groups,
  // which a setsid escapee leaves: it outlives the runner.
  const warned = messages.map((m) => m.replace(/: warn: .*/s, '')).sort();
  expect(warned).toEqual(
    pidNamespaceAvailable() ? [] : ['runner.processes.none-left', 'runner.processes.setsid-escapee'],
  );
  // One shell per command: no shell state carries over, so a restart has none to discard.
  expect(result.checks.filter((c) => c.status === 'skip').map((c) => [c.id, c.skipKind])).toEqual([
    ['runner.restart.fresh-session', 'not-exercised'],
  ]);
}, 180_000);
