import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { test } from 'vitest';
import { serveToolsOverStdio } from '../../src/servers/tools/index.js';
import { arbStdioCase, caseBytes, linesOf } from '../../src/fuzz/surfaces/tool-server-stdio.js';
import { expectForBytes, matchReplies } from '../../src/fuzz/oracles/jsonrpc.js';

test('prof', async () => {
  const c = fc.sample(arbStdioCase, { numRuns: 306, seed: 424242 })[305]!;
  let t = performance.now();
  const bytes = caseBytes(c); const lines = linesOf(bytes);
  const exp = lines.map((l) => expectForBytes(l, { blank: 'optional' }));
  console.log('bytes', bytes.length, 'lines', lines.length, 'expect ms', performance.now() - t);
  const input = new PassThrough(); const output = new PassThrough();
  let buf = '';
  output.on('data', (d) => (buf += d));
  await serveToolsOverStdio({ input, output, log: () => {} });
  t = performance.now();
  input.write(bytes);
  await new Promise((r) => setTimeout(r, 100));
  console.log('server ms', performance.now() - t);
  const replies = buf.split('\n').filter((x) => x).map((x) => JSON.parse(x));
  t = performance.now();
  console.log(JSON.stringify(matchReplies(exp, replies)).slice(0, 300), 'match ms', performance.now() - t);
  for (const [i, m] of c.messages.entries()) console.log(i, m.what.slice(0, 100), m.body.length);
}, 120_000);
