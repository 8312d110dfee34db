import { test } from 'vitest';
import { toolServerSseSurface } from '../../src/fuzz/surfaces/tool-server-sse.js';

test('sse', async () => {
  const t0 = performance.now();
  const target = await toolServerSseSurface().open();
  const fc = (await import('fast-check')).default;
  const cases = fc.sample(target.arbitrary, { numRuns: Number(process.env.RUNS ?? 200), seed: Number(process.env.SEED ?? 424242) });
  let i = 0; const fails: string[] = [];
  for (const c of cases) {
    try { await target.check(c); } catch (e) { fails.push(`case ${i}: ${String(e).slice(0, 700)}\nCASE ${fc.stringify(c).slice(0, 500)}`); if (fails.length > 4) break; }
    i++;
  }
  await target.close?.();
  console.log('cases', i, 'ms', Math.round(performance.now() - t0));
  console.log(fails.join('\n'));
}, 600_000);
