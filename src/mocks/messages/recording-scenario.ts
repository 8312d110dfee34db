import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FixtureFormatError } from '../../fixtures/errors.js';
import { isFixtureFileName } from '../../fixtures/exchange-file.js';
import { readFixtureFile } from '../../fixtures/format.js';
import type { MessagesExchange } from '../../fixtures/schema.js';
import { clip } from '../../protocol/clip.js';
import type { MessageRequest } from '../../protocol/messages/index.js';
import { mergeSecrets, redactTarget } from '../../recording/redact.js';
import type { FaultPlan } from './faults.js';
import { MESSAGES_PATH } from './journal.js';
import { recordingAsAsked } from './recording-as-asked.js';
import {
  type ComparedRequest,
  DIFFERENCES_COUNTED,
  describeRequestDifferenceWithout,
  type MatchCandidate,
  matchRequest,
  prepareMatching,
  type RequestDifference,
  SHOWN_CHARS,
} from './recording-match.js';
import type { ReplayOptions } from './replay-plan.js';
import type { Reply, Scenario, ScenarioContext } from './reply.js';

/**
 * How a replay picks the recording that answers a request: `order` (the default) takes them
 * in turn whatever arrives; `request` takes the first unused one whose request matches the
 * arrived one (recording-match.ts) and refuses a request none matches.
 */
export const ReplayMatch = z.enum(['order', 'request'], 'match is order or request');
export type ReplayMatch = z.infer<typeof ReplayMatch>;

export interface RecordingScenarioOptions extends ReplayOptions {
  /** Applied to every replay (the service's faults are layered under them). */
  faults?: FaultPlan;
  /** Default `order`. */
  match?: ReplayMatch;
  /**
   * With `match: 'request'`, called with the message of each request no recording matches
   * (the 400's message), for the log of whoever runs the mock.
   */
  onUnmatched?: (message: string) => void;
  /**
   * Values no refusal shows (the key the mock accepts, secrets of its environment), beside
   * the ones each request presented (ScenarioContext.secrets).
   */
  secrets?: readonly string[];
}

/** The message of a refused request begins with this, so a test log can be searched for it. */
export const NO_MATCH = 'wirecheck replay: no recording matches this request';

/**
 * Replies with recorded responses. `match: 'order'` (the default): in order, starting over
 * after the last (one recording: the same response to every request); the request itself
 * only has to be valid. `match: 'request'`: each request is answered by the first recording
 * not used yet whose recorded request it matches (method, target and JSON body, key order
 * aside, masked secrets matching anything; recording-match.ts), starting over among those it
 * matches once all were used, so a repeated request keeps being answered; a request none
 * matches gets 400 invalid_request_error naming the nearest recording and the first
 * difference (a client whose requests drifted from the recorded ones learns where; a 400
 * is not retried by the SDKs). Either way, a whole message recorded in the other mode than
 * the request's `stream` asks for is converted (recordingAsAsked).
 */
export function recordingScenario(
  recordings: readonly MessagesExchange[],
  options: RecordingScenarioOptions = {},
): Scenario {
  if (recordings.length === 0) throw new TypeError('recordingScenario needs at least one recording');
  const { faults, match: matchOption, onUnmatched, secrets, ...replay } = options;
  const match = ReplayMatch.safeParse(matchOption ?? 'order');
  if (!match.success) {
    throw new TypeError(
      `recordingScenario: match is "order" or "request", got ${JSON.stringify(matchOption)}`,
    );
  }
  const answer = (recording: MessagesExchange, request: MessageRequest): Reply => {
    const converted = recordingAsAsked(recording.response, request.stream === true);
    if (converted?.kind === 'message') return { ...converted, ...(faults && { faults }) };
    if (converted !== undefined) return converted;
    return { kind: 'recorded', response: recording.response, replay, ...(faults && { faults }) };
  };
  if (match.data === 'request') return matchingScenario(recordings, answer, onUnmatched, secrets ?? []);
  let next = 0;
  return (request) => {
    const recording = recordings[next % recordings.length]!;
    next++;
    return answer(recording, request);
  };
}

function matchingScenario(
  recordings: readonly MessagesExchange[],
  answer: (recording: MessagesExchange, request: MessageRequest) => Reply,
  onUnmatched: ((message: string) => void) | undefined,
  ownSecrets: readonly string[],
): Scenario {
  const candidates = recordings.map(candidateOf);
  prepareMatching(candidates);
  const used = recordings.map(() => false);
  return (request, ctx) => {
    const arrived = arrivedRequest(request, ctx);
    const result = matchRequest(candidates, arrived);
    if (result.kind === 'unmatched') {
      // The arrived values are the client's: a key it sent sits in a turn's text as readily as in its header.
      const secrets = mergeSecrets(ownSecrets, ctx.secrets ?? []);
      const message = unmatchedMessage(recordings, arrived, result.nearest, result.differences, secrets);
      onUnmatched?.(message);
      return { kind: 'error', status: 400, errorType: 'invalid_request_error', message };
    }
    let pick = result.indices.find((i) => !used[i]);
    if (pick === undefined) {
      for (const i of result.indices) used[i] = false;
      pick = result.indices[0]!;
    }
    used[pick] = true;
    return answer(recordings[pick]!, request);
  };
}

/** A recording as the matcher sees it; whether it converts to the other mode is worked out once, when first asked. */
function candidateOf(recording: MessagesExchange): MatchCandidate {
  let streamEither: boolean | undefined;
  const recordedStream = (recording.request.body as { stream?: unknown } | undefined)?.stream === true;
  return {
    request: recording.request,
    get streamEither() {
      streamEither ??= recordingAsAsked(recording.response, !recordedStream) !== undefined;
      return streamEither;
    },
  };
}

/**
 * The request as the mock received it: the scenario gets the body, the journal entry of the
 * same index the target (its query string, such as the SDK's `?beta=true`). A journal that
 * no longer holds the entry (or keeps none) leaves only the endpoint known.
 */
function arrivedRequest(request: MessageRequest, ctx: ScenarioContext): ComparedRequest {
  const entries = ctx.journal.entries();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.seq === ctx.requestIndex) return { method: entry.method, path: entry.url, body: request };
  }
  return { method: 'POST', path: MESSAGES_PATH, queryUnknown: true, body: request };
}

function unmatchedMessage(
  recordings: readonly MessagesExchange[],
  arrived: ComparedRequest,
  nearest: number,
  differences: readonly RequestDifference[],
  secrets: readonly string[],
): string {
  const count =
    differences.length >= DIFFERENCES_COUNTED
      ? `${DIFFERENCES_COUNTED} or more differences`
      : `${differences.length} difference${differences.length === 1 ? '' : 's'}`;
  const first = differences[0];
  const target = clip(redactTarget(arrived.path, secrets), SHOWN_CHARS);
  return (
    `${NO_MATCH} (${arrived.method} ${target}, among ${recordings.length} recording${recordings.length === 1 ? '' : 's'}); ` +
    `the nearest is ${labelOf(recordings[nearest]!, nearest)} (${count})` +
    (first === undefined ? '' : `, first at ${describeRequestDifferenceWithout(first, secrets)}`)
  );
}

/** Where a recording came from, for messages: its file (loadRecordings), its name, or its place. */
function labelOf(recording: MessagesExchange, index: number): string {
  const file = fileOf.get(recording);
  if (file !== undefined) return file;
  const place = `recording ${index + 1}`;
  return recording.name === undefined ? place : `${place} (${JSON.stringify(recording.name)})`;
}

/** The file each recording loadRecordings returned was read from (the recordings themselves stay plain fixtures). */
const fileOf = new WeakMap<MessagesExchange, string>();

/** A file of a directory that was left out, and why. */
export interface SkippedFile {
  readonly file: string;
  readonly problem: string;
}

/**
 * The recordings of these files and directories (a directory: its `*.json` files and the
 * `*.json.partial` files a recorder stopped mid-stream left, read as the exchange so far
 * marked truncated; in name order). A file named on its own must be a valid recording
 * (FixtureFormatError otherwise); a bad file of a directory is left out and named to
 * `onSkipped`, so one cut or foreign file does not stop the replay of the rest. A
 * directory without one valid recording is an error.
 */
export async function loadRecordings(
  paths: readonly string[],
  onSkipped: (skipped: SkippedFile) => void = () => {},
): Promise<MessagesExchange[]> {
  const out: MessagesExchange[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      out.push(await readRecording(path));
      continue;
    }
    const names = (await readdir(path)).filter(isFixtureFileName).sort();
    const skipped: SkippedFile[] = [];
    let loaded = 0;
    for (const name of names) {
      const file = join(path, name);
      try {
        out.push(await readRecording(file));
        loaded++;
      } catch (e) {
        if (!(e instanceof FixtureFormatError)) throw e;
        const problem = e.path === '' ? e.problem : `${e.path}: ${e.problem}`;
        skipped.push({ file, problem });
        onSkipped({ file, problem });
      }
    }
    if (loaded === 0) {
      const why =
        skipped.length === 0 ? 'no *.json files' : `none of its ${skipped.length} files is a valid recording`;
      throw new FixtureFormatError(path, '', `nothing to replay: ${why}`);
    }
  }
  return out;
}

async function readRecording(file: string): Promise<MessagesExchange> {
  const fixture = await readFixtureFile(file);
  if (fixture.kind === 'messages-exchange') fileOf.set(fixture, file);
  if (fixture.kind !== 'messages-exchange') {
    throw new FixtureFormatError(
      file,
      'kind',
      `a recording is a messages-exchange fixture, not ${fixture.kind}`,
    );
  }
  return fixture;
}
