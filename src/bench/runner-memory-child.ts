import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { RunnerToolUse } from '../protocol/bash/index.js';
import { createBashRunner } from '../runner/index.js';
import { MemoryChildConfig, type MemoryChildReport } from './runner-memory-wire.js';

// The memory bench's child process: a process holding a runner and nothing else, so its
// RSS is the runner's. One JSON line (MemoryChildReport) on stdout; a failure exits 1.

const config = MemoryChildConfig.parse(JSON.parse(process.argv[2] ?? 'null'));

function statusBytes(field: 'VmRSS' | 'VmHWM'): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** Resets VmHWM to the current RSS (Linux >= 4.0); false where that is not possible. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return statusBytes('VmHWM') !== undefined;
  } catch {
    return false;
  }
}

/** The highest RSS seen every 5 ms, for systems without a resettable VmHWM. */
function sampleRss(): () => number {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage().rss);
  };
}

let ids = 0;
const use = (command: string): RunnerToolUse => {
  ids += 1;
  return { type: 'tool_use', id: `toolu_memory_${ids}`, name: 'bash', input: { command } };
};

/** The baseline reader: a bare spawn whose output is counted and dropped. */
function drainBare(bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('head', ['-c', String(bytes), '/dev/zero'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.length;
    });
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve(seen));
  });
}

async function oneCommand(runner: Awaited<ReturnType<typeof createBashRunner>>): Promise<number> {
  if (config.mode === 'bare') return drainBare(config.bytes);
  const report = await runner.run(use(`head -c ${config.bytes} /dev/zero`));
  if (report.exitCode !== 0) throw new Error(`the runner's head exited ${report.exitCode}`);
  return report.stdoutBytes;
}

const runner = await createBashRunner({ workdir: config.workdir, isolation: config.isolation });
try {
  // Start-up work (the first spawn, the first capture) is not what is measured.
  const warm = await runner.run(use('true'));
  if (warm.exitCode !== 0) throw new Error(`warm-up: expected exit 0, got ${warm.exitCode}`);
  const report: MemoryChildReport = {
    isolation: runner.isolation.level,
    method: 'VmHWM',
    rssBeforeBytes: [],
    growthBytes: [],
  };
  for (let i = 0; i < config.commands; i++) {
    const sampled = sampleRss();
    const exact = resetPeak();
    const before = statusBytes('VmRSS') ?? process.memoryUsage().rss;
    const seen = await oneCommand(runner);
    const sampledPeak = sampled();
    const peak = exact ? statusBytes('VmHWM')! : sampledPeak;
    if (!exact) report.method = 'sampled';
    if (seen !== config.bytes) throw new Error(`expected ${config.bytes} bytes of output, got ${seen}`);
    report.rssBeforeBytes.push(before);
    report.growthBytes.push(peak - before);
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await runner.close();
}
