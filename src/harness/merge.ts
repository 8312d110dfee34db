import { WirecheckError } from './errors.js';
import { type CheckResult, type SuiteResult, summarize } from './results.js';
import { formatShard } from './shard.js';

/** One results.json to merge and where it came from (for messages). */
export interface MergeInput {
  readonly source: string;
  readonly result: SuiteResult;
}

function mergeError(message: string): WirecheckError {
  return new WirecheckError('WC_MERGE', message);
}

/**
 * Combine the results of one suite's shards (or of any runs that split its checks) into
 * one result. All inputs must share the seed; when they are shards, all of one count, each
 * index exactly once. A check present twice is refused: merging must never hide a rerun.
 * `order` (the suite's catalogue ids, when known) puts the checks back in catalogue order.
 */
export function mergeSuite(inputs: readonly MergeInput[], order?: readonly string[]): SuiteResult {
  const [first, ...rest] = inputs;
  if (first === undefined) throw mergeError('nothing to merge');
  const suite = first.result.suite;
  for (const other of rest) {
    if (other.result.suite !== suite) {
      throw mergeError(`${other.source} is suite ${other.result.suite}, not ${suite} as ${first.source}`);
    }
    if (other.result.seed !== first.result.seed) {
      throw mergeError(
        `suite ${suite}: seed ${other.result.seed} in ${other.source} but ${first.result.seed} in ${first.source}: shards must run with the same --seed`,
      );
    }
  }
  assertShardsComplete(suite, inputs);
  const checks: CheckResult[] = [];
  const from = new Map<string, string>();
  for (const { source, result } of inputs) {
    for (const check of result.checks) {
      const earlier = from.get(check.id);
      if (earlier !== undefined) {
        throw mergeError(`suite ${suite}: check ${check.id} is in both ${earlier} and ${source}`);
      }
      from.set(check.id, source);
      checks.push(check);
    }
  }
  if (order !== undefined) {
    const rank = new Map(order.map((id, i) => [id, i]));
    const at = (c: CheckResult) => rank.get(c.id) ?? Number.MAX_SAFE_INTEGER;
    checks.sort((a, b) => at(a) - at(b) || a.id.localeCompare(b.id));
  }
  const startedAt = inputs.map((i) => i.result.startedAt).sort()[0] ?? first.result.startedAt;
  return {
    suite,
    target: first.result.target,
    seed: first.result.seed,
    summary: summarize(checks),
    checks,
    startedAt,
    // Shards run side by side: the wall-clock time of the whole is that of the slowest.
    durationMs: Math.max(...inputs.map((i) => i.result.durationMs)),
    wirecheck: first.result.wirecheck,
    ...(first.result.runs === undefined ? {} : { runs: first.result.runs }),
    // A shard that stopped early or could not run at all leaves the whole incomplete: say so.
    ...firstOf(inputs, 'stopped'),
    ...firstOf(inputs, 'error'),
    ...warningsOf(inputs),
  };
}

/** Every shard's warnings (what it could not clean up), in input order; nothing when none has one. */
function warningsOf(inputs: readonly MergeInput[]): Partial<Pick<SuiteResult, 'warnings'>> {
  const warnings = inputs.flatMap((i) => i.result.warnings ?? []);
  return warnings.length === 0 ? {} : { warnings };
}

/** `{ [key]: value }` of the first input that has `key`, else nothing. */
function firstOf<K extends 'stopped' | 'error'>(
  inputs: readonly MergeInput[],
  key: K,
): Partial<Pick<SuiteResult, K>> {
  const value = inputs.find((i) => i.result[key] !== undefined)?.result[key];
  return value === undefined ? {} : ({ [key]: value } as Partial<Pick<SuiteResult, K>>);
}

function assertShardsComplete(suite: string, inputs: readonly MergeInput[]): void {
  const sharded = inputs.filter((i) => i.result.shard !== undefined);
  if (sharded.length === 0) return;
  const whole = inputs.find((i) => i.result.shard === undefined);
  if (whole !== undefined) {
    throw mergeError(`suite ${suite}: ${whole.source} holds the whole suite, the other inputs are shards`);
  }
  const count = sharded[0]?.result.shard?.count ?? 0;
  const byIndex = new Map<number, string>();
  for (const { source, result } of sharded) {
    const shard = result.shard;
    if (shard === undefined) continue;
    if (shard.count !== count) {
      throw mergeError(
        `suite ${suite}: ${source} is shard ${formatShard(shard)}, but other inputs have ${count} shards`,
      );
    }
    const earlier = byIndex.get(shard.index);
    if (earlier !== undefined) {
      throw mergeError(
        `suite ${suite}: shard ${formatShard(shard)} is given twice (${earlier} and ${source})`,
      );
    }
    byIndex.set(shard.index, source);
  }
  const missing: string[] = [];
  for (let index = 1; index <= count; index++) {
    if (!byIndex.has(index)) missing.push(`${index}/${count}`);
  }
  if (missing.length > 0) {
    throw mergeError(
      `suite ${suite}: shard ${missing.join(', ')} missing: its checks would silently not count`,
    );
  }
}

/**
 * Merge inputs of possibly several suites: one merged result per suite, in the order the
 * suites first appear. `orderOf(suite)` gives a suite's catalogue ids when it is known.
 */
export function mergeResults(
  inputs: readonly MergeInput[],
  orderOf: (suite: string) => readonly string[] | undefined = () => undefined,
): SuiteResult[] {
  if (inputs.length === 0) throw mergeError('no results.json among the inputs');
  const bySuite = new Map<string, MergeInput[]>();
  for (const input of inputs) {
    const group = bySuite.get(input.result.suite) ?? [];
    group.push(input);
    bySuite.set(input.result.suite, group);
  }
  return [...bySuite].map(([suite, group]) => mergeSuite(group, orderOf(suite)));
}
