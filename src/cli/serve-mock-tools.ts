import type { Command } from 'commander';
import { z } from 'zod';
import { FixtureFormatError } from '../fixtures/errors.js';
import { UsageError, WirecheckError } from '../harness/errors.js';
import {
  journalFileWriter,
  loadToolReplays,
  loadToolScenario,
  parseReplaySpeed,
  partialReplayNote,
  runStdioMockToolServer,
  ScenarioFileError,
  startMockToolServer,
  startStreamableHttpMockToolServer,
  ToolScenario,
} from '../mocks/tools/index.js';
import { PROTOCOL_REVISIONS } from '../protocol/mcp/index.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import { requiredHeadersNote } from '../servers/http/required-headers.js';
import { protocolOption } from '../suites/target-options.js';
import { OUTPUT_ALLOWANCE_BYTES, writeOrBehind } from '../transports/output-pace.js';
import { type CliContext, untilShutdown } from './context.js';
import { integer, parseOptions } from './options.js';
import { addRequireHeaderOption, requiredHeadersOf } from './require-header-option.js';

const ServeToolsInput = z.object({
  transport: z.enum(['stdio', 'sse', 'http'], '--transport is stdio, sse or http'),
  scenario: z.string().min(1, '--scenario must not be empty').optional(),
  journal: z.string().min(1, '--journal must not be empty').optional(),
  port: integer('--port', 0, 65535),
  host: z.string().min(1, '--host must not be empty'),
  seed: integer('--seed', 0, 0x7fffffff).optional(),
  replay: z.string().min(1, '--replay must not be empty').optional(),
  speed: z
    .string()
    .transform((s) => parseReplaySpeed(s))
    .pipe(z.number({ error: '--speed takes a number above 0 (1 as recorded, 2 twice as fast) or max' }))
    .optional(),
});

async function replayOf(file: string | undefined, ctx: CliContext) {
  if (file === undefined) return undefined;
  try {
    // A directory: every valid recording, in turn per session; a bad file is named and left out.
    return await loadToolReplays(
      file,
      ({ file: bad, problem }) =>
        ctx.stderr.write(
          `wirecheck serve mock-tools: skipping ${shownUntrusted(`${bad}: ${problem}`, ctx.env)}\n`,
        ),
      // Whoever replays a partial or cut session learns it here, not from a client left waiting.
      (loaded) => {
        const note = partialReplayNote(loaded);
        if (note !== undefined)
          ctx.stderr.write(
            `wirecheck serve mock-tools: serving ${shownUntrusted(`${loaded.file}: ${note}`, ctx.env)}\n`,
          );
      },
    );
  } catch (e) {
    if (e instanceof FixtureFormatError) throw new UsageError(`--replay: ${e.message}`);
    throw e;
  }
}

async function scenarioOf(file: string | undefined, seed: number | undefined): Promise<ToolScenario> {
  let scenario: ToolScenario;
  try {
    // Unresolved: the mock settles protocolVersion for its transport (2025-03-26 over http).
    scenario = file === undefined ? ToolScenario.parse({}) : await loadToolScenario(file);
  } catch (e) {
    if (e instanceof ScenarioFileError) throw new UsageError(e.message);
    throw e;
  }
  return seed === undefined ? scenario : { ...scenario, seed };
}

/**
 * `wirecheck serve mock-tools`: a scriptable mock tool server. With `--transport stdio` it
 * speaks on its own stdin/stdout (stdout carries protocol messages only, notes go to stderr)
 * and ends when stdin ends; with `sse` it prints the stream URL (with `http`, the endpoint URL)
 * and runs until interrupted.
 */
export function addServeMockToolsCommand(
  serve: Command,
  ctx: CliContext,
  finish: (exitCode: number) => void,
): void {
  const command = serve
    .command('mock-tools')
    .description(
      'run a mock tool server (stdio, SSE or Streamable HTTP) from a scenario file, journaling every message',
    )
    .option(
      '--transport <kind>',
      'stdio (speak on stdin/stdout), sse (listen for GET /sse) or http (Streamable HTTP, one endpoint /mcp)',
      'sse',
    )
    .option('--scenario <file>', 'scenario JSON: tools, call outcomes, faults (default: one echo tool)')
    .option('--journal <file>', 'append every message received and sent to this file, one JSON line each')
    .option('--port <n>', 'sse, http: port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'sse, http: address to listen on', '127.0.0.1')
    .option('--seed <n>', "seed for the mock's random choices (overrides the scenario's)")
    .option(
      '--replay <path>',
      'serve this recorded tool session (wirecheck record tools), or those of a directory in turn, instead of the scenario',
    )
    .option('--speed <factor>', 'replay: 1 as recorded (default), 2 twice as fast, max as fast as possible')
    .option(
      '--protocol <revision>',
      `MCP revision the mock answers in initialize and speaks (overrides the scenario's protocolVersion): ${PROTOCOL_REVISIONS.join(', ')}`,
    );
  addRequireHeaderOption(command).action(async (raw: Record<string, unknown>) => {
    const input = parseOptions(ServeToolsInput, raw);
    const requireHeaders = requiredHeadersOf(raw.requireHeader, input.transport, ctx.env);
    if (input.speed !== undefined && input.replay === undefined)
      throw new UsageError('--speed applies to --replay');
    const protocol = protocolOption(raw);
    const loaded = await scenarioOf(input.scenario, input.seed);
    const scenario = protocol === undefined ? loaded : { ...loaded, protocolVersion: protocol };
    const replay = await replayOf(input.replay, ctx);
    const replaying = replay === undefined ? {} : { replay, speed: input.speed ?? 1 };
    const onEntry = input.journal === undefined ? undefined : journalFileWriter(input.journal);
    const shutdown = ctx.onShutdown();
    try {
      if (input.transport === 'stdio') {
        await runStdioMockToolServer(scenario, {
          input: ctx.stdin as AsyncIterable<string | Uint8Array>,
          write: (text) => writeOrBehind(ctx.stdout, text, OUTPUT_ALLOWANCE_BYTES),
          signal: shutdown.signal,
          ...(onEntry && { onEntry }),
          ...replaying,
        });
        finish(0);
        return;
      }
      let running: Awaited<ReturnType<typeof startMockToolServer>>;
      try {
        const start = input.transport === 'http' ? startStreamableHttpMockToolServer : startMockToolServer;
        running = await start(scenario, {
          host: input.host,
          port: input.port,
          ...(onEntry && { onEntry }),
          ...(requireHeaders && { requireHeaders }),
          ...replaying,
        });
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        throw new WirecheckError('WC_SERVE_FAILED', `mock tool server: ${reason}`, { cause: e });
      }
      ctx.stdout.write(`${running.url}\n`);
      ctx.stderr.write(
        `mock tool server running${requiredHeadersNote(requireHeaders)}; interrupt (Ctrl-C) to stop\n`,
      );
      await untilShutdown(shutdown);
      await running.close();
      finish(0);
    } finally {
      shutdown.dispose();
    }
  });
}
