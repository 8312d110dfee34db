import { type ProbeReport, probeToolServer } from './probe.js';
import { formatProbeReport } from './probe-format.js';
import {
  formatStreamableProbeReport,
  probeStreamableHttpServer,
  type StreamableProbeReport,
} from './probe-http.js';

/**
 * `wirecheck probe` as one call: the report, its lines for a person and the verdict. With
 * `http`, the URL is a Streamable HTTP endpoint (MCP 2025-03-26 and later), else an SSE stream;
 * `headers` are the `--header`s to send.
 */
export async function runProbeCommand(
  url: string,
  signal: AbortSignal,
  options: { http?: boolean; headers?: Readonly<Record<string, string>> } = {},
): Promise<{ healthy: boolean; report: ProbeReport | StreamableProbeReport; lines: string[] }> {
  const probeOptions = { signal, ...(options.headers === undefined ? {} : { headers: options.headers }) };
  if (options.http === true) {
    const report = await probeStreamableHttpServer(url, probeOptions);
    return { healthy: report.healthy, report, lines: formatStreamableProbeReport(report) };
  }
  const report = await probeToolServer(url, probeOptions);
  return { healthy: report.healthy, report, lines: formatProbeReport(report) };
}
