import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { test } from 'vitest';
import { accepts, allowsNone, describeExpectation, expectForBytes } from '../../src/fuzz/oracles/jsonrpc.js';
import { arbStdioCase, caseBytes, linesOf } from '../../src/fuzz/surfaces/tool-server-stdio.js';
import { serveToolsOverStdio } from '../../src/servers/tools/index.js';

test('debug', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let buf = '';
  output.on('data', (d) => (buf += d));
  await serveToolsOverStdio({ input, output, log: () => {} });
  const cases = fc.sample(arbStdioCase, { numRuns: 400, seed: Number(process.env.SEED ?? 1) });
  let n = 0;
  for (const c of cases) {
    for (const line of linesOf(caseBytes(c))) {
      const e = expectForBytes(line, { blank: 'optional' });
      buf = '';
      input.write(Buffer.concat([line, Buffer.from('\n{"jsonrpc":"2.0","id":"ALIVE","method":"ping"}\n')]));
      for (let i = 0; i < 200 && !buf.includes('"ALIVE"'); i++) await new Promise((r) => setTimeout(r, 2));
      await new Promise((r) => setTimeout(r, 10));
      const replies = buf
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l))
        .filter((r) => r.id !== 'ALIVE');
      const ok = replies.length === 0 ? allowsNone(e) : replies.length === 1 && accepts(e, replies[0]);
      if (!ok && n++ < 5)
        console.log(
          'LINE',
          JSON.stringify(Buffer.from(line).toString('latin1').slice(0, 3000)),
          '\nEXPECTED',
          describeExpectation(e).slice(0, 3000),
          '\nGOT',
          JSON.stringify(replies).slice(0, 3000),
        );
    }
  }
}, 120_000);
