import { describe, expect, test } from 'vitest';
import { escapeHtml, formatHtml } from '../../src/reporters/html.js';
import { check, mixedResult, suiteResult } from './fixtures.js';

describe('report.html', () => {
  test('a table per suite with a row per check', () => {
    const html = formatHtml([mixedResult('a'), mixedResult('b')], { strict: false });
    expect(html.match(/<table>/g)).toHaveLength(2);
    expect(html.match(/<tr class="(pass|fail|warn|skip)">/g)).toHaveLength(8);
    expect(html).toContain('<th>id</th><th>clause</th><th>status</th><th>duration</th><th>message</th>');
    expect(html).toContain('<td class="status">fail</td>');
    expect(html).toContain('<div class="label">expected:</div><pre>content_block_stop</pre>');
  });

  test('the page needs no network: no scripts, links or external resources', () => {
    const html = formatHtml([mixedResult()], { strict: false });
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|src=|href=|@import|url\(/i);
  });

  test("a target's text cannot inject markup", () => {
    const evil = '<script>alert("x")</script><img src=x onerror=y>';
    const html = formatHtml(
      [suiteResult('s', [check({ id: 's.x', status: 'fail', message: evil, actual: evil })])],
      {
        strict: false,
      },
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  test('escaping covers the five markup characters and control characters', () => {
    expect(escapeHtml(`&<>"'\u0000`)).toBe('&amp;&lt;&gt;&quot;&#39;\\u0000');
  });
});
