import { WirecheckError } from '../harness/errors.js';
import { suiteNames } from '../suites/registry.js';

// Apart from report-error.ts: the per-case target commands report their errors with it, and
// naming the suites loads every suite (the mocks, fastify), which a target never needs.
export function unknownSuiteError(name: string): WirecheckError {
  const known = suiteNames();
  return new WirecheckError(
    'WC_UNKNOWN_SUITE',
    `no suite named "${name}"; suites: ${known.length > 0 ? known.join(', ') : '(none registered)'}`,
  );
}
