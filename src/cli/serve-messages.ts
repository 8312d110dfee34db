import type { Command } from 'commander';
import { z } from 'zod';
import { UsageError, WirecheckError } from '../harness/errors.js';
import { FaultPlan } from '../mocks/messages/faults.js';
import { unsupportedReplayFaults } from '../mocks/messages/replay-plan.js';
import { type CliContext, untilShutdown } from './context.js';
import { integer, parseOptions } from './options.js';

/**
 * What `wirecheck serve messages` asks of the mock messages service (src/mocks/messages).
 * main.ts passes the real start function in (adapting it if its options differ), so a
 * mismatch is a type error there and this file compiles on its own.
 */
export interface MockMessagesServeOptions {
  host: string;
  port: number;
  /** The scripted model: `echo` repeats the last user text; `bash` asks for the bash tool. */
  model: 'echo' | 'bash';
  /** Replay the fixtures of this directory instead of the scripted model. */
  fixturesDir?: string;
  /** Serve these recorded fixtures (files or directories), in order, instead of the scripted model. */
  recordings?: string[];
  /** Timing factor of the recordings: 1 as recorded, 2 twice as fast, 0 as fast as possible. */
  speed?: number;
  /** How a recording is picked: in turn (`order`, the default) or by the request it answers (`request`). */
  match?: 'order' | 'request';
  seed?: number;
  faults?: FaultPlan;
  /** The one key accepted (by x-api-key or Bearer); others get 401. Absent: any key. Never printed. */
  apiKey?: string;
}

export interface RunningMockMessages {
  readonly url: string;
  close(): Promise<void>;
}

export type StartMockMessagesService = (
  options: MockMessagesServeOptions,
) => Promise<RunningMockMessages> | RunningMockMessages;

const frames = (flag: string) => integer(flag, 0, 10_000_000);
const millis = (flag: string) => integer(flag, 0, 3_600_000);

/**
 * The --fault-* shorthands, each setting one field of the mock's FaultPlan (the whole
 * plan is `--faults <json>`). One row per flag, so adding one is one entry here.
 */
const FAULT_FLAGS = [
  {
    flags: '--fault-status <code>',
    description: 'answer with this HTTP error status and the API error body (e.g. 429, 500, 529)',
    schema: integer('--fault-status', 400, 599),
    apply: (plan: FaultPlan, status: number): FaultPlan => ({
      ...plan,
      httpError: { ...plan.httpError, status },
    }),
  },
  {
    flags: '--fault-headers-delay <ms>',
    description: 'wait this long before the response headers',
    schema: millis('--fault-headers-delay'),
    apply: (plan: FaultPlan, headersDelayMs: number): FaultPlan => ({ ...plan, headersDelayMs }),
  },
  {
    flags: '--fault-delay <ms>',
    description: 'wait this long before every stream frame',
    schema: millis('--fault-delay'),
    apply: (plan: FaultPlan, delayMs: number): FaultPlan => ({ ...plan, delayMs }),
  },
  {
    flags: '--fault-stall-after <frames>',
    description: 'stop sending after this many frames, keeping the connection open',
    schema: frames('--fault-stall-after'),
    apply: (plan: FaultPlan, afterFrame: number): FaultPlan => ({ ...plan, stall: { afterFrame } }),
  },
  {
    flags: '--fault-disconnect-after <frames>',
    description: 'cut the connection after this many frames',
    schema: frames('--fault-disconnect-after'),
    apply: (plan: FaultPlan, disconnectAfterFrame: number): FaultPlan => ({ ...plan, disconnectAfterFrame }),
  },
  {
    flags: '--fault-error-event-at <frame>',
    description: 'send an `event: error` frame after this many frames and end the stream',
    schema: frames('--fault-error-event-at'),
    apply: (plan: FaultPlan, atFrame: number): FaultPlan => ({ ...plan, errorEvent: { atFrame } }),
  },
  {
    flags: '--fault-random-chunks',
    description: 'write the stream in random 1-16 byte pieces',
    schema: z.literal(true),
    apply: (plan: FaultPlan): FaultPlan => ({ ...plan, chunking: { mode: 'random' } }),
  },
  {
    flags: '--fault-line-ending <lf|crlf|cr>',
    description: 'line endings of the stream',
    schema: z.enum(['lf', 'crlf', 'cr'], '--fault-line-ending is lf, crlf or cr'),
    apply: (plan: FaultPlan, lineEnding: 'lf' | 'crlf' | 'cr'): FaultPlan => ({ ...plan, lineEnding }),
  },
  {
    flags: '--fault-pings <rate>',
    description: 'probability (0-1) of a ping frame at each point between frames',
    schema: z
      .string()
      .regex(/^(0(\.\d+)?|1(\.0+)?)$/, '--fault-pings is a probability between 0 and 1')
      .transform(Number),
    apply: (plan: FaultPlan, rate: number): FaultPlan => ({ ...plan, pings: { rate } }),
  },
  {
    flags: '--fault-omit-message-stop',
    description: 'leave out the message_stop frame',
    schema: z.literal(true),
    apply: (plan: FaultPlan): FaultPlan => ({ ...plan, omitMessageStop: true }),
  },
] as const;

const ServeInput = z.object({
  port: integer('--port', 0, 65535),
  host: z.string().min(1, '--host must not be empty'),
  model: z.enum(['echo', 'bash'], '--model is echo or bash'),
  fixtures: z.string().min(1, '--fixtures must not be empty').optional(),
  seed: integer('--seed', 0, 0x7fffffff).optional(),
  faults: z.string().optional(),
  replay: z.array(z.string().min(1, '--replay has an empty path')).optional(),
  speed: z
    .string()
    .regex(/^(max|\d+(\.\d+)?)$/, '--speed takes a number (1 as recorded, 2 twice as fast) or max')
    .transform((s) => (s === 'max' ? 0 : Number(s)))
    .optional(),
  match: z.enum(['order', 'request'], '--match is order or request').optional(),
  apiKey: z.string().trim().min(1, '--api-key must not be empty').optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, '--api-key-env takes the name of an environment variable')
    .optional(),
});

/** The key `serve messages` accepts: `--api-key`, or the value of the variable `--api-key-env` names. */
function apiKeyOf(
  input: { apiKey?: string | undefined; apiKeyEnv?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (input.apiKey !== undefined && input.apiKeyEnv !== undefined) {
    throw new UsageError('--api-key and --api-key-env both name the accepted key: give one');
  }
  if (input.apiKeyEnv === undefined) return input.apiKey;
  const value = env[input.apiKeyEnv]?.trim();
  if (value === undefined || value === '') {
    throw new UsageError(`--api-key-env: the environment variable ${input.apiKeyEnv} is not set or empty`);
  }
  return value;
}

function attributeOf(flags: string): string {
  const long = flags.split(/[ ,]/).find((part) => part.startsWith('--')) ?? '';
  return long.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function faultPlanOf(raw: Record<string, unknown>, json: string | undefined): FaultPlan | undefined {
  let plan: FaultPlan = {};
  let given = false;
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      throw new UsageError(`--faults is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    plan = parseOptions(FaultPlan, parsed, '--faults');
    given = true;
  }
  for (const flag of FAULT_FLAGS) {
    const attribute = attributeOf(flag.flags);
    if (raw[attribute] === undefined) continue;
    const value = parseOptions(z.object({ [attribute]: flag.schema }), { [attribute]: raw[attribute] })[
      attribute
    ];
    plan = (flag.apply as (p: FaultPlan, v: unknown) => FaultPlan)(plan, value);
    given = true;
  }
  return given ? parseOptions(FaultPlan, plan, 'fault plan') : undefined;
}

/** The mock's options from the command line's values; a bad value is a UsageError. */
export function serveOptionsOf(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>> = {},
): MockMessagesServeOptions {
  const input = parseOptions(ServeInput, raw);
  const apiKey = apiKeyOf(input, env);
  const faults = faultPlanOf(raw, input.faults);
  if (input.replay !== undefined && input.fixtures !== undefined) {
    throw new UsageError('--replay and --fixtures are two different sources of replies: give one');
  }
  if (input.speed !== undefined && input.replay === undefined)
    throw new UsageError('--speed applies to --replay');
  if (input.match !== undefined && input.replay === undefined)
    throw new UsageError('--match applies to --replay');
  const ignored = input.replay === undefined ? [] : unsupportedReplayFaults(faults);
  if (ignored.length > 0) {
    throw new UsageError(
      `these faults have no meaning on a recording: ${ignored.join(', ')} (see docs/fixtures.md)`,
    );
  }
  return {
    host: input.host,
    port: input.port,
    model: input.model,
    ...(input.fixtures === undefined ? {} : { fixturesDir: input.fixtures }),
    ...(input.seed === undefined ? {} : { seed: input.seed }),
    ...(faults === undefined ? {} : { faults }),
    ...(input.replay === undefined ? {} : { recordings: input.replay }),
    ...(input.speed === undefined ? {} : { speed: input.speed }),
    ...(input.match === undefined ? {} : { match: input.match }),
    ...(apiKey === undefined ? {} : { apiKey }),
  };
}

/**
 * `wirecheck serve messages`: run the mock messages service until SIGINT/SIGTERM. The URL
 * is the first line on stdout, so a script can read it when it asked for port 0.
 */
export function addServeMessagesCommand(
  serve: Command,
  ctx: CliContext,
  start: StartMockMessagesService,
  finish: (exitCode: number) => void,
): void {
  const command = serve
    .command('messages')
    .description('run the mock messages service (POST /v1/messages) until interrupted')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--model <kind>',
      'scripted model: echo (repeats the prompt) or bash (calls the bash tool)',
      'echo',
    )
    .option('--fixtures <dir>', 'answer from the fixture files of this directory instead')
    .option('--replay <paths...>', 'serve these recorded fixtures (files or directories), in order, instead')
    .option(
      '--speed <factor>',
      'timing of --replay: 1 as recorded (default), 2 twice as fast, max as fast as possible',
    )
    .option(
      '--match <mode>',
      'how --replay picks a recording: order (in turn, the default) or request (the one recorded for the same request; others get 400)',
    )
    .option('--seed <n>', 'seed for every random choice of the mock (fault offsets, chunk sizes)')
    .option('--api-key <key>', 'accept only this key (x-api-key or Bearer); others get 401. Default: any key')
    .option(
      '--api-key-env <var>',
      'accept only the key in this environment variable (e.g. WIRECHECK_API_KEY)',
    )
    .option(
      '--faults <json>',
      "the mock's whole fault plan as JSON (the --fault-* flags override its fields)",
    );
  for (const f of FAULT_FLAGS) command.option(f.flags, f.description);
  command.action(async (opts: Record<string, unknown>) => {
    const options = serveOptionsOf(opts, ctx.env);
    const shutdown = ctx.onShutdown();
    try {
      let running: RunningMockMessages;
      try {
        running = await start(options);
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        throw new WirecheckError('WC_SERVE_FAILED', `mock messages service: ${reason}`, { cause: e });
      }
      ctx.stdout.write(`${running.url}\n`);
      const keys = options.apiKey === undefined ? 'any key' : 'only the configured key';
      ctx.stderr.write(`mock messages service running, accepting ${keys}; interrupt (Ctrl-C) to stop\n`);
      await untilShutdown(shutdown);
      await running.close();
      finish(0);
    } finally {
      shutdown.dispose();
    }
  });
}
