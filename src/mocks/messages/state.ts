import type { FastifyRequest } from 'fastify';
import { scrubSecrets } from '../../recording/redact.js';
import { type HostPolicy, hostPolicy } from '../../servers/http/host-guard.js';
import { FaultPlan } from './faults.js';
import { Journal, type JournalEntry } from './journal.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_STREAM_CACHE_BYTES, type MockMessagesOptions } from './options.js';
import type { Scenario } from './reply.js';
import type { Credentials } from './request-headers.js';
import { scriptedModel } from './scripted-model.js';
import { EncodedStreamCache } from './stream-cache.js';

type HttpError = NonNullable<FaultPlan['httpError']>;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What a request presented: the key the mock reads, and every secret value to keep out of the journal. */
export interface Presented {
  readonly credentials: Credentials;
  readonly secrets: readonly string[];
}

const NOTHING_PRESENTED: Presented = { credentials: { scheme: 'none', key: undefined }, secrets: [] };

/**
 * Where a request carries its journal entry and what it presented: a property of the
 * request, not a WeakMap keyed by requests: a WeakMap entry per request made each
 * young-generation collection of a busy mock dearer (measured side by side: the property
 * takes 12-14% less of the mock's CPU a request on 10-delta streams). A symbol keeps it
 * out of whatever lists or serializes the request's fields.
 */
const RECORD = Symbol('wirecheck.mock-request');

interface RequestRecord {
  readonly entry: JournalEntry;
  readonly presented: Presented;
}

type RecordedRequest = FastifyRequest & { [RECORD]?: RequestRecord };

/** Everything one mock service instance knows and can be told at run time. */
export class MockState {
  scenario: Scenario;
  faults: FaultPlan | undefined;
  readonly journal: Journal;
  readonly seed: number;
  readonly bodyLimit: number;
  readonly requireApiKey: boolean;
  readonly admit: ((body: unknown) => boolean) | undefined;
  readonly apiKey: string | undefined;
  readonly requireVersion: boolean;
  readonly acceptedVersions: readonly string[] | undefined;
  readonly pingIntervalMs: number | undefined;
  readonly framesPerWrite: number;
  readonly streamCache: EncodedStreamCache;
  /** Which Host and Origin names the mock answers. */
  readonly hosts: HostPolicy;
  /** Where `PUT /__wirecheck/scenario` may load fixtures from. */
  readonly fixtureDirs: readonly string[];
  /** The mock is shutting down: streams cut now are not client aborts. */
  closing = false;
  private nextSeq = 0;
  /** How often each httpError fault (by identity) has been served, for its `times`. */
  private readonly httpErrorsServed = new WeakMap<HttpError, number>();

  constructor(opts: MockMessagesOptions) {
    this.scenario = opts.scenario ?? scriptedModel('echo');
    this.faults = opts.faults === undefined ? undefined : FaultPlan.parse(opts.faults);
    this.journal =
      opts.journal ??
      new Journal({
        ...opts.journalLimits,
        ...(opts.journalLimit !== undefined && { entries: opts.journalLimit }),
      });
    this.seed = opts.seed ?? 1;
    this.bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.requireApiKey = opts.requireApiKey ?? true;
    this.admit = opts.admit;
    this.apiKey = opts.apiKey;
    this.requireVersion = opts.requireVersion ?? false;
    this.acceptedVersions = opts.acceptedVersions;
    this.pingIntervalMs = opts.pingIntervalMs;
    this.framesPerWrite = opts.framesPerWrite ?? 64;
    this.streamCache = new EncodedStreamCache(opts.streamCacheBytes ?? DEFAULT_STREAM_CACHE_BYTES);
    this.hosts = hostPolicy({
      ...(opts.host !== undefined && { host: opts.host }),
      ...(opts.allowedHosts !== undefined && { allowedHosts: opts.allowedHosts }),
    });
    this.fixtureDirs = opts.fixtureDirs ?? [];
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

  /** Gives the request its journal entry and the credentials it presented as sent (the journal keeps them redacted). */
  attach(request: FastifyRequest, entry: JournalEntry, presented: Presented): void {
    (request as RecordedRequest)[RECORD] = { entry, presented };
  }

  /** Keep a request's body text in the journal, with the secrets it presented scrubbed. */
  keepBody(request: FastifyRequest, entry: JournalEntry, text: string, json: boolean): void {
    const scrubbed = scrubSecrets(text, this.presentedBy(request).secrets);
    // A secret cut out of JSON in an odd place (inside an escape) could leave text that no
    // longer parses: then the journal keeps it as text.
    this.journal.setBody(entry, scrubbed, json && (scrubbed === text || parses(scrubbed)));
  }

  /** The request's credentials as sent, and the secret values to scrub from what the journal keeps. */
  presentedBy(request: FastifyRequest): Presented {
    return (request as RecordedRequest)[RECORD]?.presented ?? NOTHING_PRESENTED;
  }

  entryOf(request: FastifyRequest): JournalEntry | undefined {
    return (request as RecordedRequest)[RECORD]?.entry;
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
