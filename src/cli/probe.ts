import type { Command } from 'commander';
import { UsageError } from '../harness/errors.js';
import { OWNED_HEADER_NAMES, parseHeaderOptions } from '../protocol/header-option.js';
import { mapJsonValue } from '../protocol/json/map-values.js';
import { givenHeaderSecrets, mergeSecrets, scrubSecrets } from '../recording/redact.js';
import { redactUrl, secretsOfUrl } from '../recording/tools/redact-target.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import type { CliContext } from './context.js';

/** The probe and its formatter as one call: the report, its lines and the verdict. */
export type ProbeToolServerCommand = (
  url: string,
  signal: AbortSignal,
  options?: { http?: boolean; headers?: Readonly<Record<string, string>> },
) => Promise<{ healthy: boolean; report: unknown; lines: string[] }>;

/**
 * `wirecheck probe <url>`: the spec's health probe of an SSE tool server (5 s in all, 3 s of
 * stream capture); with `--http`, of a Streamable HTTP endpoint. Exit 0 healthy, 1 unhealthy,
 * 2 bad usage. `--header` values that the command line does not show (credential-named, or
 * `${VAR}`) are scrubbed from what it prints: a server may echo a token in a 401 body.
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
    .option(
      '--header <header>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the user types, expanded from the environment
      "'Name: value' sent with every request, e.g. 'Authorization: Bearer ${MCP_TOKEN}' (${VAR} is read from the environment); over SSE, with the POSTs only when the endpoint is on the stream's origin; repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .action(async (url: string, flags: { json?: boolean; http?: boolean; header?: string[] }) => {
      if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
        throw new UsageError(`probe takes the http(s) URL of the stream, got ${JSON.stringify(url)}`);
      }
      const given = parseHeaderOptions(flags.header ?? [], ctx.env, OWNED_HEADER_NAMES);
      if (typeof given === 'string') throw new UsageError(given);
      // The URL may carry a credential (`?api_key=`, user info): printed redacted, its values scrubbed.
      const secrets = mergeSecrets(givenHeaderSecrets(given), secretsOfUrl(url));
      const shownUrl = redactUrl(url);
      const scrub = (text: string) => scrubSecrets(text.split(url).join(shownUrl), secrets);
      const shutdown = ctx.onShutdown();
      try {
        const result = await probe(url, shutdown.signal, {
          ...(flags.http === true ? { http: true } : {}),
          ...(given.length === 0 ? {} : { headers: Object.fromEntries(given.map((h) => [h.name, h.value])) }),
        });
        // What the server said (a 500's body, an event's data) is printed: shown, not obeyed.
        // In the JSON, the escapes of a string's characters are the JSON escapes of the same.
        ctx.stdout.write(
          flags.json === true
            ? `${shownUntrusted(JSON.stringify(mapJsonValue(result.report, { string: scrub })), ctx.env)}\n`
            : result.lines.map((l) => `${shownUntrusted(scrub(l), ctx.env)}\n`).join(''),
        );
        finish(result.healthy ? 0 : 1);
      } finally {
        shutdown.dispose();
      }
    });
}
