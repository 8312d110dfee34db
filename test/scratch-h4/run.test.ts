import { test } from 'vitest';
import { runSurface } from '../../src/fuzz/run-surface.js';
import { toolServerStdioSurface } from '../../src/fuzz/surfaces/tool-server-stdio.js';

test('run', async () => {
  const t0 = performance.now();
  const surface = toolServerStdioSurface();
  const target = await surface.open();
  const fc = (await import('fast-check')).default;
  const cases = fc.sample(target.arbitrary, { numRuns: Number(process.env.RUNS ?? 200), seed: Number(process.env.SEED ?? 424242) });
  const slow: [number, string][] = [];
  let i = 0;
  for (const c of cases.slice(Number(process.env.FROM ?? 0))) {
    const t = performance.now();
    try { await target.check(c); } catch (e) { console.log('FAIL case', i, String(e).slice(0, 1500), '\nCASE', fc.stringify(c).slice(0, 1500)); break; }
    const ms = performance.now() - t;
    if (ms > 900) slow.push([Math.round(ms), (c as any).messages.map((m: any) => m.what.slice(0, 150)).join(" || ")]);
    i++;
  }
  await target.close?.();
  console.log('cases', i, 'ms', Math.round(performance.now() - t0));
  console.log(slow.slice(0, 10).map((s) => s.join(' ')).join('\n'));
}, 600_000);
