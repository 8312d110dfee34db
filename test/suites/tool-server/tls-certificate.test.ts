import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { CA_HINT, certificateRefusalOf, certificateWords } from '../../../src/harness/certificate-refusal.js';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { WIRECHECK_BIN } from '../../../src/package-root.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { startTestHttpsServer, writeTestCert } from '../../fixtures/tls/test-certificate.js';
import { freePort, quickSuite } from './helpers.js';

// An https URL whose self-signed certificate Node refuses did answer: the message says TLS
// refused the certificate and how to give wirecheck the CA, not that the URL "does not answer"
// with Node's advice of a node flag (--use-system-ca) that a user of wirecheck does not pass.

async function unavailable(target: ToolServerTarget): Promise<string> {
  try {
    await runSuite(quickSuite, target, { seed: 1, runs: 1, only: ['tool-server.initialize.'] });
  } catch (e) {
    if (e instanceof TargetUnavailable) return e.message;
    throw e;
  }
  throw new Error('the target was not reported unavailable');
}

const SELF_SIGNED = `self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); ${CA_HINT}`;

function notFound(_req: unknown, res: import('node:http').ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' }).end('no such path');
}

describe('a URL target whose TLS certificate is refused', () => {
  test('--sse: the certificate was refused, with NODE_EXTRA_CA_CERTS, not "does not answer"', async () => {
    const server = await startTestHttpsServer(notFound);
    try {
      const url = `https://127.0.0.1:${server.port}/sse`;
      const message = await unavailable({ kind: 'sse', url });
      expect(message).toBe(`the TLS certificate of ${url} was refused: ${SELF_SIGNED}`);
    } finally {
      await server.close();
    }
  }, 30_000);

  test('--http: the POST of initialize is said to meet a refused certificate, not to get no answer', async () => {
    const server = await startTestHttpsServer(notFound);
    try {
      const url = `https://127.0.0.1:${server.port}/mcp`;
      const message = await unavailable({ kind: 'http', url });
      expect(message).toContain(`the TLS certificate of ${url} was refused: ${SELF_SIGNED}`);
      expect(message).not.toMatch(/no HTTP answer|--use-system-ca/);
    } finally {
      await server.close();
    }
  }, 30_000);

  test('--start: a server whose certificate is refused has answered; its start timeout is not waited out', async () => {
    const server = await startTestHttpsServer(notFound);
    try {
      const url = `https://127.0.0.1:${server.port}/sse`;
      const t0 = performance.now();
      const message = await unavailable({ kind: 'sse', url, start: 'sleep 30', startTimeoutMs: 20_000 });
      expect(message).toBe(`the TLS certificate of ${url} was refused: ${SELF_SIGNED}`);
      expect(performance.now() - t0).toBeLessThan(10_000);
    } finally {
      await server.close();
    }
  }, 30_000);

  test('an https URL nobody listens on still does not answer (the handshake tells the two apart)', async () => {
    const url = `https://127.0.0.1:${await freePort()}/sse`;
    const message = await unavailable({ kind: 'sse', url });
    expect(message).toMatch(
      /^the stream URL https:\/\/127\.0\.0\.1:\d+\/sse does not answer: .*ECONNREFUSED/,
    );
  }, 30_000);

  test('NODE_EXTRA_CA_CERTS, as the message says, gets wirecheck past TLS to the server', async () => {
    const server = await startTestHttpsServer(notFound);
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-tls-'));
    try {
      const url = `https://127.0.0.1:${server.port}/sse`;
      const run = (env: NodeJS.ProcessEnv) =>
        promisify(execFile)(process.execPath, [WIRECHECK_BIN, 'test', 'tool-server', '--sse', url], {
          env: { ...process.env, ...env },
        }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
        );
      const without = await run({});
      expect(without.code).toBe(2);
      expect(without.stderr).toContain('NODE_EXTRA_CA_CERTS=/path/ca.pem');
      const given = await run({ NODE_EXTRA_CA_CERTS: await writeTestCert(dir) });
      expect(given.code).toBe(2);
      expect(given.stderr).toMatch(/answered HTTP 404 text\/plain/);
      expect(given.stderr).not.toMatch(/certificate/);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the words of a refused certificate', () => {
  const refusal = (code: string, message: string) => Object.assign(new Error(message), { code });

  test("undici's `fetch failed` carries the socket's refusal as its cause; Node's advice of a node flag is dropped", () => {
    const fetchFailed = new TypeError('fetch failed', {
      cause: refusal(
        'DEPTH_ZERO_SELF_SIGNED_CERT',
        'self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
      ),
    });
    const found = certificateRefusalOf(fetchFailed);
    expect(found).toEqual({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', reason: 'self-signed certificate' });
    expect(certificateWords('https://h:1', found!)).toBe(
      `the TLS certificate of https://h:1 was refused: ${SELF_SIGNED}`,
    );
  });

  test('any other error is no refusal', () => {
    expect(certificateRefusalOf(refusal('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'))).toBeUndefined();
    expect(certificateRefusalOf(new TypeError('fetch failed'))).toBeUndefined();
    expect(certificateRefusalOf('self-signed certificate')).toBeUndefined();
  });

  test('a certificate for another host, or out of date, is not cured by a CA: the hint says what is', () => {
    const altname = certificateRefusalOf(
      refusal('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
    )!;
    expect(certificateWords('https://h:1', altname)).toMatch(/not for the URL's host/);
    const expired = certificateRefusalOf(refusal('CERT_HAS_EXPIRED', 'certificate has expired'))!;
    expect(certificateWords('https://h:1', expired)).toMatch(/outside its dates of validity/);
  });
});
