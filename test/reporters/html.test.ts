import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { windowAround } from '../../src/harness/item-window.js';
import type { CheckResult, Evidence } from '../../src/harness/results.js';
import { diffInline, diffLines } from '../../src/reporters/html/diff.js';
import { renderDifference } from '../../src/reporters/html/difference.js';
import { SCRIPT } from '../../src/reporters/html/script.js';
import { escapeHtml, formatHtml } from '../../src/reporters/html.js';
import { check, mixedResult, suiteResult } from './fixtures.js';

function page(checks: CheckResult[], strict = false): string {
  return formatHtml([suiteResult('s', checks)], { strict });
}

const EVIL = '</script><script>alert(1)</script><img src=x onerror=y>';

describe('report.html', () => {
  test('a table per suite with a body per check, classed by status for the filters', () => {
    const html = formatHtml([mixedResult('a'), mixedResult('b')], { strict: false });
    expect(html.match(/<table class="checks">/g)).toHaveLength(2);
    expect(html.match(/<tbody class="check (pass|fail|warn|skip)">/g)).toHaveLength(8);
    expect(html).toContain('<section class="suite" id="suite-1" data-suite="1" data-pass="1" data-fail="1"');
    expect(html).toContain(
      '<th>status</th><th>id</th><th>clause</th><th>level</th><th>duration</th><th>message</th>',
    );
    expect(html).toContain('reproduce: <code>npx wirecheck test a --seed 42 --only a.a.fail</code>');
    expect(html).toContain('<p class="verdict meta" id="totals">2 passed, 2 failed, 2 warned, 2 skipped</p>');
  });

  test('the headline counts warnings as failures only under strict', () => {
    const checks = [check({ id: 's.w', status: 'warn' }), check({ id: 's.p', status: 'pass' })];
    expect(page(checks)).toContain('<p class="verdict pass" id="verdict">PASSED</p>');
    expect(page(checks, true)).toContain('FAILED: 1 failing check (--strict: warnings count as failures)');
  });

  test('the page needs no network: no URL, and a CSP that admits only its own script by hash', () => {
    const html = formatHtml([mixedResult()], { strict: false });
    expect(html).not.toMatch(/<link|src=|href=|@import|url\(/i);
    expect(html.match(/<script>/g)).toHaveLength(1);
    const hash = createHash('sha256').update(SCRIPT).digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(html).toContain("default-src 'none'");
  });

  test("a target's text cannot inject markup: message, values and evidence stay text", () => {
    const evidence: Evidence = {
      kind: 'frames',
      title: EVIL,
      frames: [{ atMs: 0, event: EVIL, data: EVIL }],
      mark: 0,
    };
    const rpc: Evidence = {
      kind: 'jsonrpc',
      title: EVIL,
      messages: [{ atMs: 0, session: EVIL, direction: 'received', text: EVIL }],
    };
    const html = page([
      check({ id: EVIL, status: 'fail', message: EVIL, expected: EVIL, actual: `${EVIL}!`, evidence }),
      check({ id: 's.rpc', status: 'fail', description: EVIL, clause: EVIL, evidence: rpc }),
    ]);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test("a stop's message (it quotes the target) cannot inject markup into the verdict line", () => {
    const html = formatHtml(
      [
        suiteResult('s', [check({ id: 's.p', status: 'pass' })], {
          stopped: {
            kind: 'target-gone',
            message: `stderr: <style>main{display:none}</style><p class="verdict pass">PASSED</p><!--`,
          },
        }),
      ],
      { strict: false },
    );
    expect(html).not.toContain('<p class="verdict pass">PASSED');
    expect(html).not.toContain('<!--');
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html).toContain(
      'INCOMPLETE: no check failed, but not every check ran (stopped early: stderr: &lt;style&gt;',
    );
  });

  test('escaping covers the five markup characters and control characters', () => {
    expect(escapeHtml(`&<>"'\u0000`)).toBe('&amp;&lt;&gt;&quot;&#39;\\u0000');
  });

  test('a frames picture: a dot per frame on a time axis, the marked one classed, and a frame list', () => {
    const evidence: Evidence = {
      kind: 'frames',
      title: 'text stream',
      mark: 1,
      frames: [
        { atMs: 0, event: 'message_start', data: '{}' },
        { atMs: 10, event: 'message_delta', data: '{"x":1}' },
        { atMs: 12, comment: true, data: 'hi' },
      ],
    };
    const html = page([check({ id: 's.f', status: 'fail', evidence })]);
    expect(html.match(/<g class="frame /g)).toHaveLength(3);
    expect(html).toContain('<g class="frame k-mdelta marked" data-index="1">');
    expect(html).toContain('<tr class="k-mdelta marked"><td class="num">#1</td><td class="num">10 ms</td>');
    expect(html).toContain('3 frames over 12 ms; offending frame #1');
  });

  test('a long stream is drawn as a window around the marked frame, saying how many were left out', () => {
    const frames = Array.from({ length: 5000 }, (_, i) => ({
      atMs: i,
      event: 'ping',
      data: '{"type":"ping"}',
    }));
    const html = page([
      check({ id: 's.f', status: 'fail', evidence: { kind: 'frames', title: 't', frames, mark: 4000 } }),
    ]);
    expect(html.match(/<g class="frame /g)).toHaveLength(240);
    expect(html).toContain('data-index="4000"');
    expect(html).toContain('data-index="4999"');
    expect(html).not.toContain('data-index="0"');
    expect(html).toContain('4760 of 5000 frames not drawn');
  });

  test('JSON-RPC sessions: one grid column per session, rows in wire order, the marked message classed', () => {
    const evidence: Evidence = {
      kind: 'jsonrpc',
      title: 'sessions',
      mark: 2,
      messages: [
        { atMs: 0, session: 'a', direction: 'sent', text: '{"id":1}' },
        { atMs: 1, session: 'b', direction: 'sent', text: '{"id":1}' },
        { atMs: 2, session: 'a', direction: 'received', text: '{"id":1,"result":{}}' },
      ],
    };
    const html = page([check({ id: 's.r', status: 'fail', evidence })]);
    expect(html).toContain('class="msg sent" data-index="1" style="grid-column:2;grid-row:3"');
    expect(html).toContain('class="msg received marked" data-index="2" style="grid-column:1;grid-row:4"');
    expect(html).toContain('3 messages in 2 sessions; offending message #2');
  });

  test('passing checks carry no detail row', () => {
    const html = page([check({ id: 's.p', status: 'pass', expected: 'x', actual: 'y' })]);
    expect(html).not.toContain('class="detail"');
  });
});

describe('expected against actual', () => {
  test('JSON values are pretty-printed and diffed by line', () => {
    const html = renderDifference('{"a":1,"b":[1,2]}', '{"a":1,"b":[1,3]}');
    expect(html).toContain('<div class="del"><span class="sign">−</span>    2</div>');
    expect(html).toContain('<div class="add"><span class="sign">+</span>    3</div>');
    expect(html).toContain('<div class="same"><span class="sign"> </span>  &quot;a&quot;: 1,</div>');
  });

  test('one-line values highlight the differing middle', () => {
    expect(diffInline('content_block_stop', 'content_block_start')).toEqual({
      prefix: 'content_block_st',
      expected: 'op',
      actual: 'art',
      suffix: '',
    });
    expect(renderDifference('abc', 'abd')).toContain('ab<mark>c</mark>');
  });

  test('an inline difference never splits a surrogate pair', () => {
    const d = diffInline('x😀', 'x😃');
    expect(d.prefix).toBe('x');
    expect([...d.expected]).toHaveLength(1);
  });

  test('the line diff keeps common lines and orders deletions before additions', () => {
    expect(diffLines(['a', 'b', 'c'], ['a', 'x', 'c'])).toEqual([
      { op: 'same', text: 'a' },
      { op: 'del', text: 'b' },
      { op: 'add', text: 'x' },
      { op: 'same', text: 'c' },
    ]);
    expect(diffLines([], ['n'])).toEqual([{ op: 'add', text: 'n' }]);
  });

  test('long unchanged runs fold into one line', () => {
    const a = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const b = a.map((l, i) => (i === 15 ? 'changed' : l));
    expect(renderDifference(a.join('\n'), b.join('\n'))).toContain('… 12 unchanged lines');
  });

  test('a lone value is shown as it is', () => {
    expect(renderDifference(undefined, 'got this')).toContain(
      '<div class="label">actual</div><pre>got this</pre>',
    );
  });
});

describe('windowAround', () => {
  test('keeps everything when it fits, else a window around the mark plus the last item', () => {
    expect(windowAround([1, 2, 3], 1, 5).omitted).toBe(0);
    const w = windowAround(
      Array.from({ length: 100 }, (_, i) => i),
      50,
      10,
    );
    expect(w.items.map((x) => x.index)).toEqual([45, 46, 47, 48, 49, 50, 51, 52, 53, 99]);
    expect(w.omitted).toBe(90);
    expect(windowAround([0, 1, 2, 3, 4, 5], undefined, 3).items.map((x) => x.index)).toEqual([0, 1, 5]);
    // A window reaching the end still draws `max` items.
    expect(windowAround([0, 1, 2, 3, 4, 5], 5, 3).items.map((x) => x.index)).toEqual([3, 4, 5]);
  });
});

describe('report.html and the baseline', () => {
  test('an expected failure does not fail the headline; a stale entry does; both are named on their row', () => {
    const expected = check({
      id: 's.e',
      status: 'fail',
      baseline: { status: 'expected-failure', reason: 'known bug #12' },
    });
    expect(page([expected])).toContain(
      '<p class="verdict pass" id="verdict">PASSED (1 expected failures listed in the baseline)</p>',
    );
    expect(page([expected])).toContain('baseline: expected failure: known bug #12');
    const stale = check({ id: 's.s', status: 'pass', baseline: { status: 'stale', reason: 'fixed?' } });
    expect(page([stale])).toContain('FAILED: 1 failing check (1 stale baseline entries)');
  });

  test('a shard is named in the suite line', () => {
    const html = formatHtml([suiteResult('s', [], { shard: { index: 2, count: 3 } })], { strict: false });
    expect(html).toContain('seed 42 · shard 2/3 · started');
  });
});
