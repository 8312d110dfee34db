import type { ProbeReport } from './probe.js';

const MAX_SHOWN = 300;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}

/** The probe's findings as lines for a person: one per step, then the verdict. */
export function formatProbeReport(report: ProbeReport): string[] {
  const lines = [`probe ${report.url}`];
  const s = report.stream;
  if (s.status === undefined) lines.push(`stream: no response (${s.error ?? 'unknown error'})`);
  else lines.push(`stream: HTTP ${s.status}, content type ${s.contentType ?? '(none)'} (${s.atMs} ms)`);
  const e = report.endpoint;
  if (e !== undefined) {
    const resolved = e.url === undefined ? `not a URL or path: ${e.error}` : e.url;
    const session = e.sessionId === undefined ? 'no sessionId' : `session ${e.sessionId}`;
    lines.push(`endpoint event: ${JSON.stringify(e.data)} -> ${resolved}, ${session} (${e.atMs} ms)`);
  } else if (s.status === 200) {
    lines.push('endpoint event: none');
  }
  const p = report.post;
  if (p !== undefined) {
    lines.push(
      p.status === undefined
        ? `POST initialize: failed (${p.error})`
        : `POST initialize: HTTP ${p.status}${p.body ? ` ${clip(JSON.stringify(p.body))}` : ''} (${p.atMs} ms)`,
    );
  }
  if (report.reply !== undefined) {
    lines.push(`first reply: ${clip(JSON.stringify(report.reply.message))} (${report.reply.atMs} ms)`);
  } else if (p?.status === 200 || p?.status === 202) {
    lines.push('first reply: none');
  }
  if (report.initializedStatus !== undefined) {
    lines.push(`POST notifications/initialized: HTTP ${report.initializedStatus}`);
  }
  if (report.headersWithheld === true) {
    lines.push("--header: not sent with the POSTs (the endpoint is not on the stream's origin)");
  }
  const others = report.frames.length - (e === undefined ? 0 : 1) - (report.reply === undefined ? 0 : 1);
  lines.push(
    `captured: ${report.frames.length} event(s), ${report.comments} comment(s)${others > 0 ? `, ${others} other` : ''}`,
  );
  lines.push(
    report.healthy
      ? `healthy (${report.durationMs} ms)`
      : `unhealthy: ${report.reason ?? 'unknown reason'} (${report.durationMs} ms)`,
  );
  return lines;
}
