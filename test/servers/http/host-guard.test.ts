import { describe, expect, test } from 'vitest';
import { hostNameOf, hostPolicy, hostRefusal, originRefusal } from '../../../src/servers/http/host-guard.js';

describe('Host and Origin checks of the local servers (DNS rebinding, pages of other sites)', () => {
  const local = hostPolicy({ host: '127.0.0.1' });

  test('host names are read without their port, IPv6 in brackets', () => {
    expect(hostNameOf('LocalHost:8080')).toBe('localhost');
    expect(hostNameOf('[::1]:9')).toBe('[::1]');
    expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
  });

  test.each(['localhost:1234', '127.0.0.1:80', '[::1]:5', 'LOCALHOST'])(
    'Host %s is a loopback name: allowed',
    (host) => {
      expect(hostRefusal(local, host)).toBeUndefined();
    },
  );

  test.each(['attacker.example:8080', 'evil.localhost.example', '10.0.0.5:80', 'localhost.attacker.example'])(
    'Host %s is refused with a message naming it and the allowed names',
    (host) => {
      const refusal = hostRefusal(local, host);
      expect(refusal).toContain(JSON.stringify(host));
      expect(refusal).toContain('localhost, 127.0.0.1, [::1]');
    },
  );

  test('the configured host and allowedHosts are allowed; a request without Host passes', () => {
    const policy = hostPolicy({ host: '192.168.1.9', allowedHosts: ['mock.internal'] });
    expect(hostRefusal(policy, '192.168.1.9:8000')).toBeUndefined();
    expect(hostRefusal(policy, 'Mock.Internal:8000')).toBeUndefined();
    expect(hostRefusal(policy, undefined)).toBeUndefined();
    expect(hostRefusal(policy, 'other.internal')).toBeDefined();
  });

  test('a wildcard bind checks no Host (it is reached by names it cannot know)', () => {
    expect(hostRefusal(hostPolicy({ host: '0.0.0.0' }), 'devbox:8000')).toBeUndefined();
    expect(hostRefusal(hostPolicy({ host: '::' }), 'devbox:8000')).toBeUndefined();
  });

  test('Origin: none or a loopback page passes whatever its port; another site or null is refused', () => {
    expect(originRefusal(local, undefined)).toBeUndefined();
    expect(originRefusal(local, 'http://localhost:5173')).toBeUndefined();
    expect(originRefusal(local, 'http://[::1]:3000')).toBeUndefined();
    expect(originRefusal(local, 'https://attacker.example')).toContain('"https://attacker.example"');
    expect(originRefusal(local, 'null')).toBeDefined();
    expect(originRefusal(local, 'file://')).toBeDefined();
  });
});
