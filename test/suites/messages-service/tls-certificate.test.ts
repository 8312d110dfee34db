import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CA_HINT } from '../../../src/harness/certificate-refusal.js';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { UsageError } from '../../../src/harness/errors.js';
import { messagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { startTestHttpsServer } from '../../fixtures/tls/test-certificate.js';

// A messages service over https whose self-signed certificate Node refuses answered: TLS
// refused what it showed. "cannot be reached ... fetch failed: DEPTH_ZERO_SELF_SIGNED_CERT
// self-signed certificate; ... try running Node.js with --use-system-ca" sent the user looking
// for a service that was up, with a node flag wirecheck's user does not pass.

const KEY_ENV = 'WIRECHECK_TEST_MESSAGES_SERVICE_TLS_KEY';

beforeAll(() => {
  process.env[KEY_ENV] = 'wc-test-key-tls';
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

describe('a messages service whose TLS certificate is refused', () => {
  test('is unavailable for its refused certificate, with how to give wirecheck the CA', async () => {
    let requests = 0;
    const server = await startTestHttpsServer((_req, res) => {
      requests += 1;
      res.writeHead(500).end();
    });
    try {
      const baseUrl = `https://127.0.0.1:${server.port}`;
      const error = await messagesServiceSuite
        .open({ baseUrl, apiKeyEnv: KEY_ENV }, { seed: 1, runs: 1, full: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TargetUnavailable);
      expect((error as Error).message).toBe(
        `the TLS certificate of the messages service at ${baseUrl} was refused: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT); ${CA_HINT}`,
      );
      expect(requests).toBe(0);
    } finally {
      await server.close();
    }
  });

  test('a base URL with a user and password is a usage error that does not show them (fetch sent none: it crashed the run)', async () => {
    const error = await messagesServiceSuite
      .open(
        { baseUrl: 'https://me:pw7@127.0.0.1:1/p', apiKeyEnv: KEY_ENV },
        { seed: 1, runs: 1, full: false },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('carries a user name or password');
    expect((error as Error).message).not.toContain('pw7');
  });

  test('says so without the credentials its URL carries (a short query token)', async () => {
    const server = await startTestHttpsServer((_req, res) => res.writeHead(500).end());
    try {
      const baseUrl = `https://127.0.0.1:${server.port}/p?token=tk7`;
      const error = await messagesServiceSuite
        .open({ baseUrl, apiKeyEnv: KEY_ENV }, { seed: 1, runs: 1, full: false })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TargetUnavailable);
      const message = (error as Error).message;
      expect(message).toContain('was refused: self-signed certificate');
      expect(message).not.toContain('tk7');
    } finally {
      await server.close();
    }
  });
});
