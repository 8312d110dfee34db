import { clip } from '../protocol/clip.js';
import { WirecheckError } from './errors.js';
import { RESULT_TEXT_LIMITS } from './result-text.js';
import { type CheckResult, type RunStop, type SuiteResult, summarize } from './results.js';
import { runName } from './run-name.js';
import { formatShard, shardOfCheck } from './shard.js';

/** One results.json to merge and where it came from (for messages). */
export interface MergeInput {
  readonly source: string;
  readonly result: SuiteResult;
}

function mergeError(message: string): WirecheckError {
  return new WirecheckError('WC_MERGE', message);
}

/** Characters of a target's description quoted in a refusal (results.json files are the user's). */
const TARGET_QUOTE_LIMIT = 200;

/**
 * Combine the results of one suite's shards (or of any runs that split its checks) into
 * one result. All inputs must share the seed, the runs per property and the wirecheck version
 * (each decides which cases a check tries, so a merge of differing ones reads as one run that
 * no one made; targets described differently are a warning); when they are shards, all of one count, each index
 * exactly once. A check present twice is refused: merging must never hide a rerun. Runs of
 * different variants (the tool-server suite over stdio and over Streamable HTTP in one
 * `wirecheck all`) are different runs, each judging every check: they are refused as one.
 * `order` (the suite's catalogue ids, when known) puts the checks back in catalogue order.
 */
export function mergeSuite(inputs: readonly MergeInput[], order?: readonly string[]): SuiteResult {
  const [first, ...rest] = inputs;
  if (first === undefined) throw mergeError('nothing to merge');
  // Messages name the run as reports do: `tool-server (stdio)`.
  const suite = runName(first.result);
  for (const other of rest) {
    if (other.result.suite !== first.result.suite || other.result.variant !== first.result.variant) {
      throw mergeError(`${other.source} is suite ${runName(other.result)}, not ${suite} as ${first.source}`);
    }
    assertSameRun(suite, first, other);
  }
  const { tested, warning } = targetOfShards(suite, inputs);
  assertShardsComplete(suite, inputs);
  if (order !== undefined) for (const input of inputs) assertChecksOfCatalogue(suite, input, order);
  const checks: CheckResult[] = [];
  const from = new Map<string, string>();
  for (const { source, result } of inputs) {
    for (const check of result.checks) {
      const earlier = from.get(check.id);
      if (earlier !== undefined) {
        throw mergeError(`suite ${suite}: check ${check.id} is in both ${earlier} and ${source}`);
      }
      from.set(check.id, source);
      checks.push(clipCheck(check));
    }
  }
  if (order !== undefined) {
    const rank = new Map(order.map((id, i) => [id, i]));
    const at = (c: CheckResult) => rank.get(c.id) ?? Number.MAX_SAFE_INTEGER;
    checks.sort((a, b) => at(a) - at(b) || a.id.localeCompare(b.id));
  }
  const startedAt = inputs.map((i) => i.result.startedAt).sort()[0] ?? first.result.startedAt;
  return {
    suite: first.result.suite,
    ...(first.result.variant === undefined ? {} : { variant: first.result.variant }),
    target: (tested ?? first).result.target,
    seed: first.result.seed,
    summary: summarize(checks),
    checks,
    startedAt,
    // Shards run side by side: the wall-clock time of the whole is that of the slowest.
    durationMs: Math.max(...inputs.map((i) => i.result.durationMs)),
    wirecheck: first.result.wirecheck,
    ...(first.result.runs === undefined ? {} : { runs: first.result.runs }),
    ...(first.result.selection === undefined ? {} : { selection: first.result.selection }),
    // A shard that stopped early or could not run at all leaves the whole incomplete: say so.
    ...stopOfShards(inputs),
    ...errorOfShards(inputs),
    ...warningsOf(inputs, warning),
  };
}

/** What every shard must share with the first: its seed, runs and wirecheck version. */
function assertSameRun(suite: string, first: MergeInput, other: MergeInput): void {
  const [a, b] = [first.result, other.result];
  if (b.seed !== a.seed) {
    throw sameRunError(
      suite,
      first,
      other,
      'seed',
      (r) => String(r.seed),
      'shards must run with the same --seed',
    );
  }
  if (b.runs !== a.runs) {
    const runs = (r: SuiteResult) => (r.runs === undefined ? 'not recorded' : String(r.runs));
    throw sameRunError(
      suite,
      first,
      other,
      'runs',
      runs,
      'shards must run with the same --runs (and --full)',
    );
  }
  // Unknown (a file of an older version) on either side: left to the shard assignment of each check (assertChecksOfCatalogue).
  if (a.selection !== undefined && b.selection !== undefined && selectionKey(a) !== selectionKey(b)) {
    throw sameRunError(
      suite,
      first,
      other,
      'the selection',
      (r) => quoted(selectionKey(r)),
      'shards must select the same checks (the same --only, and --full on all or none): a merge of different selections lacks checks silently',
    );
  }
  if (b.wirecheck !== a.wirecheck) {
    const version = (r: SuiteResult) => quoted(r.wirecheck);
    throw sameRunError(
      suite,
      first,
      other,
      'wirecheck',
      version,
      'run every shard with the same wirecheck version',
    );
  }
}

/** The checks a run selected, as the user would have asked for them. */
function selectionKey(result: SuiteResult): string {
  const only = result.selection?.only;
  if (only !== undefined) return `--only ${[...new Set(only)].sort().join(',')}`;
  return result.selection?.full === true ? '--full' : 'the quick tier (no --only, no --full)';
}

/**
 * Every check of an input must be one of the suite's catalogue and, in a shard, one that its
 * shard holds: a file edited by hand, or a shard of another selection whose file does not
 * record it, would otherwise merge into a report lacking or doubling checks.
 */
function assertChecksOfCatalogue(suite: string, input: MergeInput, order: readonly string[]): void {
  const known = new Set(order);
  const shard = input.result.shard;
  for (const check of input.result.checks) {
    if (!known.has(check.id)) {
      throw mergeError(
        `suite ${suite}: ${input.source} has check ${quoted(check.id)}, which is not in the suite's catalogue (\`wirecheck list ${input.result.suite}\`): merge with the wirecheck version that ran the shards`,
      );
    }
    if (shard === undefined) continue;
    const belongs = shardOfCheck(check.id, shard.count);
    if (belongs !== shard.index) {
      throw mergeError(
        `suite ${suite}: ${input.source} is shard ${formatShard(shard)} but has check ${check.id}, which belongs to shard ${belongs}/${shard.count}`,
      );
    }
  }
}

/** A check with its texts within RESULT_TEXT_LIMITS again: a results.json is the user's file, and may be anything. */
function clipCheck(check: CheckResult): CheckResult {
  const message = (t: string) => clip(t, RESULT_TEXT_LIMITS.message);
  const shown = (t: string) => clip(t, RESULT_TEXT_LIMITS.shown);
  return {
    ...check,
    message: message(check.message),
    ...(check.expected === undefined ? {} : { expected: shown(check.expected) }),
    ...(check.actual === undefined ? {} : { actual: shown(check.actual) }),
    ...(check.sharedCause === undefined ? {} : { sharedCause: message(check.sharedCause) }),
    ...(check.labels === undefined
      ? {}
      : { labels: check.labels.map((l) => ({ label: message(l.label), message: message(l.message) })) }),
  };
}

/** "suite S: seed 7 in B but 42 in A: <fix>": what arrived in `other`, what `expected` had. */
function sameRunError(
  suite: string,
  expected: MergeInput,
  other: MergeInput,
  what: string,
  show: (result: SuiteResult) => string,
  fix: string,
): WirecheckError {
  return mergeError(
    `suite ${suite}: ${what} ${show(other.result)} in ${other.source} but ${show(expected.result)} in ${expected.source}: ${fix}`,
  );
}

/**
 * The first shard that reached its target (a shard that could not start it, or was stopped
 * before, has no description of it), and a warning when another names a different one. A
 * warning, not a refusal: shards of one CI matrix may reach the same server at their own
 * ports or paths, and a description cannot tell that from another server.
 */
function targetOfShards(suite: string, inputs: readonly MergeInput[]) {
  const [tested, ...others] = inputs.filter((i) => reachedTarget(i.result));
  const other = others.find(
    (o) =>
      tested !== undefined && withoutLocalPorts(o.result.target) !== withoutLocalPorts(tested.result.target),
  );
  if (tested === undefined || other === undefined) return { tested };
  const warning = `suite ${suite}: the shards describe their targets differently: ${quoted(other.result.target)} in ${other.source} but ${quoted(tested.result.target)} in ${tested.source}; merged as one run, which is right only if they tested the same implementation`;
  return { tested, warning };
}

/**
 * A target's description without the ports of loopback addresses (and a `--port N` of the
 * command that started it): each shard runs on its own machine, and a server that wirecheck
 * started (`wirecheck all`, a --start command) listens on a port picked for that run. The port
 * tells nothing of which implementation answered, and would make every merge of `all` warn.
 */
function withoutLocalPorts(target: string): string {
  return target
    .replace(/(?<![\w.-])(127(?:\.\d{1,3}){3}|localhost|\[::1\]):\d{1,5}\b/g, '$1:PORT')
    .replace(/(\s--port[\s=])\d{1,5}\b/g, '$1PORT');
}

function quoted(text: string): string {
  return JSON.stringify(clip(text, TARGET_QUOTE_LIMIT));
}

/** Whether a run got as far as its target: else its `target` is a placeholder. */
function reachedTarget(result: SuiteResult): boolean {
  return result.error === undefined && result.checks.some((c) => c.skipKind !== 'not-run');
}

/**
 * The kinds of stop, the first deciding the exit status before the others: a harness error
 * (2) and an interrupt (130/143) leave the merged run unjudged, as they do a single run; a
 * target gone or a budget used up failed a check of their shard already.
 */
const STOP_ORDER: readonly RunStop['kind'][] = ['harness-error', 'interrupted', 'target-gone', 'budget'];

/** The stop the merged result keeps: of the shards that stopped, the first of the weightiest kind. */
function stopOfShards(inputs: readonly MergeInput[]): Partial<Pick<SuiteResult, 'stopped'>> {
  for (const kind of STOP_ORDER) {
    const stopped = inputs.find((i) => i.result.stopped?.kind === kind)?.result.stopped;
    if (stopped !== undefined) return { stopped };
  }
  return {};
}

/** Every shard's warnings (what it could not clean up), in input order, then the merge's own; nothing when none. */
function warningsOf(inputs: readonly MergeInput[], own?: string): Partial<Pick<SuiteResult, 'warnings'>> {
  const warnings = [...inputs.flatMap((i) => i.result.warnings ?? []), ...(own === undefined ? [] : [own])];
  return warnings.length === 0 ? {} : { warnings };
}

/** The error of the first shard that could not run at all, else nothing. */
function errorOfShards(inputs: readonly MergeInput[]): Partial<Pick<SuiteResult, 'error'>> {
  const error = inputs.find((i) => i.result.error !== undefined)?.result.error;
  return error === undefined ? {} : { error };
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
  // Counted, and only the first few named: a count read from a file may be large.
  const missing: string[] = [];
  let more = 0;
  for (let index = 1; index <= count; index++) {
    if (byIndex.has(index)) continue;
    if (missing.length < MISSING_NAMED) missing.push(`${index}/${count}`);
    else more++;
  }
  if (missing.length > 0) {
    const list = more === 0 ? missing.join(', ') : `${missing.join(', ')} and ${more} more`;
    throw mergeError(`suite ${suite}: shard ${list} missing: its checks would silently not count`);
  }
}

/** Missing shards a refusal names one by one. */
const MISSING_NAMED = 10;

/**
 * Merge inputs of possibly several suites: one merged result per suite run (suite and
 * variant: the shards of a `wirecheck all` hold the tool-server suite once per transport), in
 * the order the runs first appear. `orderOf(suite)` gives a suite's catalogue ids when it is known.
 */
export function mergeResults(
  inputs: readonly MergeInput[],
  orderOf: (suite: string) => readonly string[] | undefined = () => undefined,
): SuiteResult[] {
  if (inputs.length === 0) throw mergeError('no results.json among the inputs');
  const byRun = new Map<string, { suite: string; group: MergeInput[] }>();
  for (const input of inputs) {
    const { suite, variant } = input.result;
    const key = JSON.stringify([suite, variant ?? null]);
    const run = byRun.get(key) ?? { suite, group: [] };
    run.group.push(input);
    byRun.set(key, run);
  }
  return [...byRun.values()].map(({ suite, group }) => mergeSuite(group, orderOf(suite)));
}
