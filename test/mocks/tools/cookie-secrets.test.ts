import { expect, test } from 'vitest';
import { secretsOfRequest } from '../../../src/mocks/tools/journal-secrets.js';

// A Cookie header was learned whole (`sid=<value>`): a client repeating the value alone, as a
// session cookie's value is repeated, kept it in clear.
test("each cookie pair's value is learned on its own, quoted or not; short ones are not secrets", () => {
  const secrets = secretsOfRequest(
    { cookie: 'sid=COOKIESECRET777; theme=dark; csrf="QUOTEDSECRET888"' },
    '/mcp',
  );
  expect(secrets).toEqual(expect.arrayContaining(['COOKIESECRET777', 'QUOTEDSECRET888']));
  expect(secrets).not.toContain('dark');
});

test("a Bearer token's credential is learned on its own", () => {
  expect(secretsOfRequest({ authorization: 'Bearer sk-ant-api03-SECRETSECRET1234567890' }, '/mcp')).toContain(
    'sk-ant-api03-SECRETSECRET1234567890',
  );
});
