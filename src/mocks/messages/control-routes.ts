import { resolve } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBodyFor } from './api-errors.js';
import { FaultPlan } from './faults.js';
import { FixtureError, fixtureScenario } from './fixture-scenario.js';
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
  app.get(`${CONTROL_PREFIX}journal`, async (_request, reply) =>
    reply.type('application/json').send(`[${state.journal.entries().map(entryJson).join(',')}]`),
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
    try {
      state.setScenario(scenarioOfJson(parsed.data));
    } catch (e) {
      if (e instanceof FixtureError) return refuse(request, reply, e.message);
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
 * One journal entry as JSON. A body nested too deeply for JSON.stringify (the mock accepts
 * what the real API accepts, recursion depth included) is replaced by a note, so one such
 * request cannot make the whole journal unreadable.
 */
function entryJson(entry: object): string {
  try {
    return JSON.stringify(entry);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return JSON.stringify({ ...entry, body: `[body nested too deeply to serialize: ${e.message}]` });
  }
}
