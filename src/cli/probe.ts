import type { Command } from 'commander';
import { UsageError } from '../harness/errors.js';
import type { CliContext } from './context.js';

/** The probe and its formatter as one call: the report, its lines and the verdict. */
export type ProbeToolServerCommand = (
  url: string,
  signal: AbortSignal,
  options?: { http?: boolean },
) => Promise<{ healthy: boolean; report: unknown; lines: string[] }>;

/**
 * `wirecheck probe <url>`: the spec's health probe of an SSE tool server (5 s in all, 3 s of
 * stream capture); with `--http`, of a Streamable HTTP endpoint. Exit 0 healthy, 1 unhealthy,
 * 2 bad usage.
 */
export function addProbeCommand(
  program: Command,
  ctx: CliContext,
  probe: ProbeToolServerCommand,
  finish: (exitCode: number) => void,
): void {
  program
    .command('probe')
    .description(
      'health probe of an SSE tool server: open the stream, wait for the endpoint event, POST initialize, wait for the reply (5 s in all); exit 0 healthy, 1 unhealthy',
    )
    .argument('<url>', 'the stream URL, e.g. http://127.0.0.1:8000/sse (with --http: the endpoint URL)')
    .option('--json', 'print what the probe saw as one JSON object')
    .option(
      '--http',
      'the URL is a Streamable HTTP endpoint (MCP 2025-03-26 and later): POST initialize, read the JSON or event-stream answer, POST initialized, DELETE',
    )
    .action(async (url: string, flags: { json?: boolean; http?: boolean }) => {
      if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
        throw new UsageError(`probe takes the http(s) URL of the stream, got ${JSON.stringify(url)}`);
      }
      const shutdown = ctx.onShutdown();
      try {
        const result = await probe(url, shutdown.signal, flags.http === true ? { http: true } : {});
        ctx.stdout.write(
          flags.json === true
            ? `${JSON.stringify(result.report)}\n`
            : result.lines.map((l) => `${l}\n`).join(''),
        );
        finish(result.healthy ? 0 : 1);
      } finally {
        shutdown.dispose();
      }
    });
}
