import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { depthProblem } from '../limits.js';
import { errorBodyFor } from './api-errors.js';
import { FaultPlan } from './faults.js';
import { BUNDLED_FIXTURES_DIR, FixtureError, fixtureScenario } from './fixture-scenario.js';
import type { Journal, JournalEntry } from './journal.js';
import { ReplyJson, type Scenario } from './reply.js';
import { scriptScenarioOfJson } from './script-scenario.js';
import { scriptedModel } from './scripted-model.js';
import type { MockState } from './state.js';

/** Paths of the control API; requests to them are not journaled and need no key. */
export const CONTROL_PREFIX = '/__wirecheck/';

/** Body of `PUT /__wirecheck/scenario`. */
export const ScenarioJson = z.union([
  z.strictObject({ replies: z.array(ReplyJson) }),
  z.strictObject({ model: z.enum(['echo', 'bash']) }),
  z.strictObject({ fixtures: z.string().min(1) }),
]);
export type ScenarioJson = z.infer<typeof ScenarioJson>;

/** The scenario a `PUT /__wirecheck/scenario` body stands for (a fixtures dir is relative to the cwd). */
export function scenarioOfJson(json: ScenarioJson): Scenario {
  if ('replies' in json) return scriptScenarioOfJson(json.replies);
  if ('model' in json) return scriptedModel(json.model);
  return fixtureScenario(resolve(json.fixtures));
}

function refuse(request: FastifyRequest, reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).send(errorBodyFor(400, request.id, 'invalid_request_error', message));
}

function jsonOf(request: FastifyRequest): { ok: true; value: unknown } | { ok: false; message: string } {
  const text = typeof request.body === 'string' ? request.body : '';
  const deep = depthProblem(text);
  if (deep !== undefined) return { ok: false, message: `body: ${deep}` };
  try {
    return { ok: true, value: text.trim() === '' ? null : JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `body is not valid JSON: ${(e as Error).message}` };
  }
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
}

/**
 * The control API, handy for the CLI and for clients in other languages:
 * `GET|DELETE /__wirecheck/journal`, `PUT /__wirecheck/scenario`, `PUT /__wirecheck/faults`
 * (a FaultPlan, or null / empty body to clear), `GET /__wirecheck/health`.
 */
export function registerControlRoutes(app: FastifyInstance, state: MockState): void {
  app.get(`${CONTROL_PREFIX}health`, async () => ({ ok: true }));
  // Streamed entry by entry: the journal is bounded (JournalLimits), and even at its
  // bound no single string the size of the whole journal is built.
  app.get(`${CONTROL_PREFIX}journal`, async (_request, reply) =>
    reply.type('application/json').send(Readable.from(journalJson(state.journal))),
  );
  app.delete(`${CONTROL_PREFIX}journal`, async (_request, reply) => {
    state.journal.clear();
    return reply.code(204).send();
  });
  app.put(`${CONTROL_PREFIX}scenario`, async (request, reply) => {
    const json = jsonOf(request);
    if (!json.ok) return refuse(request, reply, json.message);
    const parsed = ScenarioJson.safeParse(json.value);
    if (!parsed.success) {
      return refuse(
        request,
        reply,
        `expected {"replies": [...]} or {"model": "echo"|"bash"} or {"fixtures": dir}: ${issueOf(parsed.error)}`,
      );
    }
    if ('fixtures' in parsed.data) {
      const why = fixtureDirRefusal(parsed.data.fixtures, [BUNDLED_FIXTURES_DIR, ...state.fixtureDirs]);
      if (why !== undefined) {
        return reply.code(403).send(errorBodyFor(403, request.id, 'permission_error', why));
      }
    }
    try {
      state.setScenario(scenarioOfJson(parsed.data));
    } catch (e) {
      // The file and the kind of problem, never the parser's words: they quote the file's bytes.
      if (e instanceof FixtureError) return refuse(request, reply, `fixture ${e.file}: ${e.problem}`);
      throw e;
    }
    return { ok: true };
  });
  app.put(`${CONTROL_PREFIX}faults`, async (request, reply) => {
    const json = jsonOf(request);
    if (!json.ok) return refuse(request, reply, json.message);
    if (json.value === null) {
      state.setFaults(undefined);
      return { ok: true };
    }
    const parsed = FaultPlan.safeParse(json.value);
    if (!parsed.success) return refuse(request, reply, `invalid fault plan: ${issueOf(parsed.error)}`);
    state.setFaults(parsed.data);
    return { ok: true };
  });
}

/**
 * Why `dir` may not be loaded through the control route, or undefined: only the
 * directories given at start (and those below them) may be, checked on the resolved path
 * and again on its real path (a symbolic link out of them does not count). The message
 * says which directories are allowed and nothing about the path asked for.
 */
export function fixtureDirRefusal(dir: string, allowed: readonly string[]): string | undefined {
  const inside = (path: string, roots: readonly string[]) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`));
  const roots = allowed.map((d) => resolve(d));
  const asked = resolve(dir);
  const refusal = `fixtures are loaded only from the directories given when the mock started (${roots.join(', ')}); start it with --fixtures DIR (fixtureDirs) to allow another`;
  if (!inside(asked, roots)) return refusal;
  let real: string;
  try {
    real = realpathSync(asked);
  } catch {
    return undefined; // Missing: loading it fails with "cannot read the directory".
  }
  const realRoots = roots.map((r) => {
    try {
      return realpathSync(r);
    } catch {
      return r;
    }
  });
  return inside(real, realRoots) ? undefined : refusal;
}

/** The journal as a JSON array, in pieces of at most one entry. */
function* journalJson(journal: Journal): Generator<string> {
  yield '[';
  let first = true;
  for (const entry of journal.entries()) {
    yield `${first ? '' : ','}${entryJson(journal, entry)}`;
    first = false;
  }
  yield ']';
}

/**
 * One journal entry as JSON, its body written from the text the journal kept (JSON as
 * received, or a string) instead of parsed and serialized again: no walk of the body at
 * all, whatever its shape.
 */
function entryJson(journal: Journal, entry: JournalEntry): string {
  const kept = journal.bodyTextOf(entry);
  if (kept === undefined) return JSON.stringify(entry);
  const rest: Record<string, unknown> = {};
  // Every field but `body`, read without calling the body's getter (which would parse it).
  for (const key of Object.keys(entry)) if (key !== 'body') rest[key] = entry[key as keyof JournalEntry];
  const fields = JSON.stringify(rest);
  const body = kept.json ? kept.text : JSON.stringify(kept.text);
  return fields === '{}' ? `{"body":${body}}` : `${fields.slice(0, -1)},"body":${body}}`;
}
