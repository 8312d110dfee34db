import { describe, expect, test } from 'vitest';
import {
  redactCommand,
  redactUrl,
  secretsOfCommand,
  secretsOfUrl,
} from '../../src/recording/tools/redact-target.js';

// A target as the user wrote it: what redactCommand and redactUrl hide by name are the values
// secretsOfCommand and secretsOfUrl give, to be scrubbed where the target quotes them back.

describe('the credentials written into a command', () => {
  const command =
    'API_TOKEN=tok-0123456789abcdef PORT=8080 npx server --token tk-flag-0123456789 --api-key="sk-quoted 0123456789" --max-tokens 4096 --name my-server-name';

  test('redactCommand hides the values of credential assignments and flags, nothing else', () => {
    expect(redactCommand(command)).toBe(
      'API_TOKEN=[redacted] PORT=8080 npx server --token [redacted] --api-key=[redacted] --max-tokens 4096 --name my-server-name',
    );
  });

  test('secretsOfCommand gives those values, unquoted (and the credential after a space on its own)', () => {
    expect(secretsOfCommand(command).sort()).toEqual(
      ['sk-quoted 0123456789', 'tk-flag-0123456789', 'tok-0123456789abcdef', '0123456789'].sort(),
    );
  });

  test('a variable named, not given, is no secret to scrub; nor is a value under 8 characters', () => {
    expect(secretsOfCommand(`API_KEY=$API_KEY server --token "\${MCP_TOKEN}" --auth short`)).toEqual([]);
    expect(secretsOfCommand('node server.js --port 8080')).toEqual([]);
  });

  test('a URL in the command has its credentials hidden as redactUrl hides them', () => {
    const remote =
      'npx mcp-remote "https://deploy:pa55word-0123@mcp.example.com/sse?api_key=sk-live-0123456789&tenant=acme" --transport sse';
    expect(redactCommand(remote)).toBe(
      'npx mcp-remote "https://[redacted]@mcp.example.com/sse?api_key=[redacted]&tenant=acme" --transport sse',
    );
    expect(secretsOfCommand(remote)).toEqual(
      expect.arrayContaining(['pa55word-0123', 'sk-live-0123456789', 'deploy:pa55word-0123']),
    );
    // A URL without credentials, as given.
    expect(redactCommand('MCP_URL=http://127.0.0.1:8000/mcp?tenant=acme node s.js')).toBe(
      'MCP_URL=http://127.0.0.1:8000/mcp?tenant=acme node s.js',
    );
  });

  test('a flag that switches a credential off (`--no-auth`) takes no value: the next word stays', () => {
    expect(redactCommand('node server.js --no-auth /srv/data --token tok-0123456789')).toBe(
      'node server.js --no-auth /srv/data --token [redacted]',
    );
    expect(secretsOfCommand('node server.js --no-auth /srv/data-directory')).toEqual([]);
  });
});

describe('the credentials written into a URL', () => {
  test('redactUrl hides user info and credential query parameters, the rest as given', () => {
    expect(
      redactUrl('http://deploy:pa55word-0123@127.0.0.1:8000/mcp?api_key=sk-live-0123456789&tenant=acme'),
    ).toBe('http://[redacted]@127.0.0.1:8000/mcp?api_key=[redacted]&tenant=acme');
    // Nothing to hide: as typed, not as the URL parser spells it (no `/` added).
    expect(redactUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(redactUrl('http://h/a@b?x=1')).toBe('http://h/a@b?x=1');
  });

  test('secretsOfUrl gives those values, as given and decoded', () => {
    expect(
      secretsOfUrl('http://deploy:pa55word%400123@h/mcp?api_key=sk-live%2B0123456789&tenant=acme').sort(),
    ).toEqual(
      [
        'deploy:pa55word%400123',
        'deploy:pa55word@0123',
        'pa55word%400123',
        'pa55word@0123',
        'sk-live%2B0123456789',
        'sk-live+0123456789',
      ].sort(),
    );
    expect(secretsOfUrl('http://127.0.0.1:8000/mcp?tenant=acme-corporation')).toEqual([]);
    expect(secretsOfUrl('not a url ?token=tok-0123456789')).toEqual(['tok-0123456789']);
    // The password is all after the first colon, colons of its own included.
    expect(secretsOfUrl('http://deploy:pa:ss-secret-01@h/mcp')).toContain('pa:ss-secret-01');
  });
});
