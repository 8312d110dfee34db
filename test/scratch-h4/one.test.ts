import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { test } from 'vitest';
import { serveToolsOverStdio } from '../../src/servers/tools/index.js';
import { arbStdioCase, caseBytes, linesOf } from '../../src/fuzz/surfaces/tool-server-stdio.js';
import { allowsNone, expectForBytes, matchReplies } from '../../src/fuzz/oracles/jsonrpc.js';

test('one', async () => {
  const cases = fc.sample(arbStdioCase, { numRuns: 10, seed: 424242 });
  const c = cases[9]!;
  const bytes = caseBytes(c);
  const lines = linesOf(bytes);
  const exp = lines.map((l) => expectForBytes(l, { blank: 'optional' }));
  console.log('lines', lines.length, 'definite', exp.filter((e) => !allowsNone(e)).length);
  for (const mode of ['whole', 'lines']) {
    const input = new PassThrough(); const output = new PassThrough();
    let buf = '';
    output.on('data', (d) => (buf += d));
    const logs: string[] = [];
    const s = await serveToolsOverStdio({ input, output, log: (l) => logs.push(l) });
    if (mode === 'whole') input.write(bytes); else for (const [i, l] of lines.entries()) { const before = buf.length; input.write(Buffer.concat([l, Buffer.from('\n')])); await new Promise((r) => setTimeout(r, 5)); const got = buf.slice(before); const e = exp[i]!; const n = got.split('\n').filter(x => x).length; if ((n === 0) !== allowsNone(e) || n > 1) console.log('L', i, n, JSON.stringify(Buffer.from(l).toString('latin1').slice(0,150)), got.slice(0, 200)); }
    await new Promise((r) => setTimeout(r, 200));
    const replies = buf.split('\n').filter((x) => x !== '').map((x) => JSON.parse(x));
    const m = matchReplies(exp, replies);
    console.log(mode, 'replies', replies.length, JSON.stringify(m), 'logs', logs.length);
    if (!m.ok) for (const x of m.missing) console.log('MISSING', x, JSON.stringify(Buffer.from(lines[x]!).toString('latin1').slice(0,100)), 'prev', JSON.stringify(Buffer.from(lines[x-1]!).toString('latin1').slice(0,100)));
    console.log(logs.filter(l => /line (9\d|10\d)/.test(l)).map(l => l.slice(0, 150)).join('\n'));
    await s.close();
  }
}, 120_000);
