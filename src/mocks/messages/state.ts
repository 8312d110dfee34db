import type { FastifyRequest } from 'fastify';
import { FaultPlan } from './faults.js';
import { Journal, type JournalEntry } from './journal.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_STREAM_CACHE_BYTES, type MockMessagesOptions } from './options.js';
import type { Scenario } from './reply.js';
import { scriptedModel } from './scripted-model.js';
import { EncodedStreamCache } from './stream-cache.js';

type HttpError = NonNullable<FaultPlan['httpError']>;

/** Everything one mock service instance knows and can be told at run time. */
export class MockState {
  scenario: Scenario;
  faults: FaultPlan | undefined;
  readonly journal: Journal;
  readonly seed: number;
  readonly bodyLimit: number;
  readonly requireApiKey: boolean;
  readonly apiKey: string | undefined;
  readonly requireVersion: boolean;
  readonly acceptedVersions: readonly string[] | undefined;
  readonly pingIntervalMs: number | undefined;
  readonly framesPerWrite: number;
  readonly streamCache: EncodedStreamCache;
  /** The mock is shutting down: streams cut now are not client aborts. */
  closing = false;
  private nextSeq = 0;
  private readonly entries = new WeakMap<FastifyRequest, JournalEntry>();
  /** How often each httpError fault (by identity) has been served, for its `times`. */
  private readonly httpErrorsServed = new WeakMap<HttpError, number>();

  constructor(opts: MockMessagesOptions) {
    this.scenario = opts.scenario ?? scriptedModel('echo');
    this.faults = opts.faults === undefined ? undefined : FaultPlan.parse(opts.faults);
    this.journal = opts.journal ?? new Journal(opts.journalLimit);
    this.seed = opts.seed ?? 1;
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.requireApiKey = opts.requireApiKey ?? true;
    this.apiKey = opts.apiKey;
    this.requireVersion = opts.requireVersion ?? false;
    this.acceptedVersions = opts.acceptedVersions;
    this.pingIntervalMs = opts.pingIntervalMs;
    this.framesPerWrite = opts.framesPerWrite ?? 64;
    this.streamCache = new EncodedStreamCache(opts.streamCacheBytes ?? DEFAULT_STREAM_CACHE_BYTES);
  }

  setScenario(scenario: Scenario): void {
    this.scenario = scenario;
  }

  /** Validates the plan (throws a ZodError naming the bad field) and applies it to later requests. */
  setFaults(faults: FaultPlan | undefined): void {
    this.faults = faults === undefined ? undefined : FaultPlan.parse(faults);
  }

  takeSeq(): number {
    return this.nextSeq++;
  }

  attach(request: FastifyRequest, entry: JournalEntry): void {
    this.entries.set(request, entry);
  }

  entryOf(request: FastifyRequest): JournalEntry | undefined {
    return this.entries.get(request);
  }

  /** The plan's HTTP error if it still applies (counts it as served). */
  takeHttpError(plan: FaultPlan | undefined): HttpError | undefined {
    const error = plan?.httpError;
    if (!error) return undefined;
    const served = this.httpErrorsServed.get(error) ?? 0;
    if (error.times !== undefined && served >= error.times) return undefined;
    this.httpErrorsServed.set(error, served + 1);
    return error;
  }
}
