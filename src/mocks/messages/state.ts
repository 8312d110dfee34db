import type { FastifyRequest } from 'fastify';
import { redactBody, scrubPrefix, scrubWindow } from '../../recording/redact.js';
import { BODY_BUDGET_FACTOR, BodyBudget } from '../../servers/http/body-budget.js';
import { type HostPolicy, hostPolicy } from '../../servers/http/host-guard.js';
import { FaultPlan } from './faults.js';
import { Journal, type JournalEntry } from './journal.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_STREAM_CACHE_BYTES, type MockMessagesOptions } from './options.js';
import type { Scenario } from './reply.js';
import type { Credentials } from './request-headers.js';
import { scriptedModel } from './scripted-model.js';
import { holdsSecretField } from './secret-fields.js';
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

/**
 * Most distinct secrets a request body is scrubbed of. Each is searched for in the kept part
 * of the body; a client sending a thousand credential-named parameters would make that a
 * thousand searches of a megabyte per request. A request that presented more has its body
 * withheld from the journal instead: no secret may reach it.
 */
export const MAX_BODY_SECRETS = 16;

/** What the journal keeps of a body: the text, whether it was cut or withheld, and how many code units were searched. */
export interface JournalBody {
  readonly text: string;
  readonly cut: boolean;
  readonly withheld: boolean;
  readonly searched: number;
}

/**
 * What the journal keeps of a request body: its first `keep` code units (a journal of
 * `keep` bytes keeps no more) with the secrets scrubbed, searched in that prefix only, a
 * secret across the cut replaced whole (scrubPrefix); or, past MAX_BODY_SECRETS, a note in
 * place of the body saying why it is not kept.
 */
export function journalBodyOf(text: string, secrets: readonly string[], keep: number): JournalBody {
  if (secrets.length > MAX_BODY_SECRETS) {
    const why = `the request presented ${secrets.length} distinct secret values, more than the ${MAX_BODY_SECRETS} a body is scrubbed of (MAX_BODY_SECRETS)`;
    return { text: `[redacted: ${why}]`, cut: false, withheld: true, searched: 0 };
  }
  return {
    text: scrubPrefix(text, secrets, keep),
    cut: text.length > keep,
    withheld: false,
    searched: scrubWindow(text.length, secrets, keep),
  };
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
  /** Request bodies held at once (see BodyBudget). */
  readonly bodies: BodyBudget;
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
    // Its refusals name the option that sets the budget.
    this.bodies = new BodyBudget(opts.bodiesInFlightLimit ?? BODY_BUDGET_FACTOR * this.bodyLimit, {
      holder: 'the mock',
      ending: ' (bodiesInFlightLimit)',
    });
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

  /**
   * Keep a request's body text in the journal, with the secrets it presented scrubbed, and,
   * when it is JSON (`parsed`), the string values of fields named like a credential redacted
   * (redactBody): a token in a field came in no header or URL to scrub it by. Only what the
   * journal keeps is scrubbed of values (a UTF-8 byte is at least one code unit, so its
   * `bodyBytes` fit in as many code units): a 32 MiB body costs a search of 1 MiB.
   */
  keepBody(
    request: FastifyRequest,
    entry: JournalEntry,
    text: string,
    parsed?: { readonly value: unknown },
  ): void {
    const source =
      parsed !== undefined && holdsSecretField(parsed.value)
        ? JSON.stringify(redactBody(parsed.value))
        : text;
    const kept = journalBodyOf(source, this.presentedBy(request).secrets, this.journal.limits.bodyBytes);
    if (kept.withheld) {
      this.journal.setBody(entry, kept.text, false);
      entry.bodyWithheld = {
        bytes: Buffer.byteLength(text),
        secrets: this.presentedBy(request).secrets.length,
      };
      return;
    }
    // A secret cut out of JSON in an odd place (inside an escape) could leave text that no
    // longer parses: then the journal keeps it as text.
    const whole = parsed !== undefined && !kept.cut && (kept.text === source || parses(kept.text));
    this.journal.setBody(entry, kept.text, whole);
    // The journal measured the prefix it was given; the size worth noting is the body's.
    if (kept.cut || entry.bodyTruncated !== undefined)
      entry.bodyTruncated = { bytes: Buffer.byteLength(text) };
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
