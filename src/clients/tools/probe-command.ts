import { type ProbeReport, probeToolServer } from './probe.js';
import { formatProbeReport } from './probe-format.js';

/** `wirecheck probe` as one call: the report, its lines for a person and the verdict. */
export async function runProbeCommand(
  url: string,
  signal: AbortSignal,
): Promise<{ healthy: boolean; report: ProbeReport; lines: string[] }> {
  const report = await probeToolServer(url, { signal });
  return { healthy: report.healthy, report, lines: formatProbeReport(report) };
}
