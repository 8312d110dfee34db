import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { JournalLimits } from '../limits.js';
import type { FaultPlan } from './faults.js';
import type { Journal } from './journal.js';
import type { Scenario } from './reply.js';

export interface MockMessagesOptions {
  /** Decides each reply. Default: scriptedModel('echo'). */
  scenario?: Scenario;
  /** Faults applied to every reply (a reply's own faults override field by field). */
  faults?: FaultPlan;
  /** Seed of every random fault choice when the plan has none (default 1). */
  seed?: number;
  /** Largest accepted request body in bytes; larger gets 413 request_too_large. Default 32 MiB, like the real API. */
  bodyLimit?: number;
  /**
   * Bytes of request bodies held at once, by what each request declares (BodyBudget); a request
   * that would pass it gets 529 overloaded_error at once. Default 4 x bodyLimit.
   */
  bodiesInFlightLimit?: number;
  /**
   * Serve a body the real API would refuse when this returns true for it, instead of
   * answering 400 (the agent suite: a body the spec allows, so the rest of the loop can be
   * judged). The journal records why the real API would refuse it (`realApiRefusal`), and
   * the scenario gets the body unchecked beyond what this function checked. Default: none.
   */
  admit?: (body: unknown) => boolean;
  /** Refuse requests without a key (401 authentication_error). Default true. */
  requireApiKey?: boolean;
  /** When set, only this key is accepted (by x-api-key or Bearer); others get 401. */
  apiKey?: string;
  /** Refuse requests without a version header (service-version or anthropic-version) with 400. Default false: recorded only. */
  requireVersion?: boolean;
  /** When set, other version values get 400. Default: any value is accepted and recorded. */
  acceptedVersions?: readonly string[];
  /** Keep-alive: a ping every this many ms during long pauses of a stream. Default: none. */
  pingIntervalMs?: number;
  /** Frames joined into one write when no chunking fault is set. Default 64. */
  framesPerWrite?: number;
  /** Fastify's logger option. Default false. */
  logger?: FastifyServerOptions['logger'];
  /** Journal to record into (default: a new one), for callers of build() that inject. */
  journal?: Journal;
  /** Entries the default journal keeps, oldest forgotten first (default 10,000; 0 keeps none). */
  journalLimit?: number;
  /**
   * Bounds of the default journal: entries, total bytes (default 64 MiB) and bytes of one
   * body (default 1 MiB; a longer body is kept cut, with its size). `journalLimit` wins for
   * the entry count.
   */
  journalLimits?: Partial<JournalLimits>;
  /** The address the service listens on: requests whose Host is not it or a loopback name get 403 (DNS rebinding). Default 127.0.0.1. */
  host?: string;
  /** More Host names to answer to (e.g. the name a container network gives the mock). */
  allowedHosts?: readonly string[];
  /**
   * Directories `PUT /__wirecheck/scenario` may load `{"fixtures": dir}` from (the
   * directory itself or one below it); none by default, besides the bundled fixtures. The
   * CLI passes the `--fixtures` directory.
   */
  fixtureDirs?: readonly string[];
  /**
   * Bytes of encoded streams kept for message replies served more than once (default
   * 64 MiB; 0 turns the cache off). See EncodedStreamCache.
   */
  streamCacheBytes?: number;
}

export interface MockMessagesService {
  /** `http://127.0.0.1:PORT`, no trailing slash, no /v1. */
  url: string;
  journal: Journal;
  setScenario(scenario: Scenario): void;
  setFaults(faults: FaultPlan | undefined): void;
  /** Closes the server, cutting streams still open (e.g. stalled ones). */
  close(): Promise<void>;
  /** The underlying Fastify instance. */
  app: FastifyInstance;
}

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;
export const DEFAULT_STREAM_CACHE_BYTES = 64 * 1024 * 1024;
