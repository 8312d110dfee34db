import { describe, expect, test } from 'vitest';
import { escapeXmlAttribute, escapeXmlText, formatJunit } from '../../src/reporters/junit.js';
import { check, mixedResult, suiteResult } from './fixtures.js';
import { xmlProblems } from './xml-wellformed.js';

describe('junit.xml', () => {
  test('a testsuite per suite and a testcase per check, time in seconds', () => {
    const xml = formatJunit([mixedResult('a'), mixedResult('b')], { strict: false });
    expect(xmlProblems(xml)).toEqual([]);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml.match(/<testcase /g)).toHaveLength(8);
    expect(xml).toContain('<testcase classname="a" name="a.a.pass" time="0.012"/>');
    expect(xml).toMatch(/<testsuites name="wirecheck" tests="8" failures="2" errors="0" skipped="2"/);
  });

  test('a failure carries message, type and expected/actual/reproduce text', () => {
    const xml = formatJunit([mixedResult()], { strict: false });
    expect(xml).toContain(
      '<failure message="message_delta arrived before content_block_stop" type="fail">message_delta arrived before content_block_stop\nclause: Events rule 1\nexpected: content_block_stop\nactual: message_delta\nreproduce: npx wirecheck test demo --seed 42 --only demo.a.fail</failure>',
    );
  });

  test('a warning passes with the warning in system-out unless strict', () => {
    const lenient = formatJunit([mixedResult()], { strict: false });
    const warnCase = lenient.slice(lenient.indexOf('name="demo.a.warn"'));
    expect(warnCase.slice(0, warnCase.indexOf('</testcase>'))).toContain('<system-out>WARNING no ping frame');
    expect(lenient.match(/<failure /g)).toHaveLength(1);
    const strict = formatJunit([mixedResult()], { strict: true });
    expect(strict).toContain('<failure message="no ping frame during a long pause" type="warn">');
    expect(strict).toMatch(/<testsuite name="demo" tests="4" failures="2"/);
  });

  test('a skip is a skipped element', () => {
    expect(formatJunit([mixedResult()], { strict: false })).toContain(
      '<skipped message="target does not stream"/>',
    );
  });

  test('markup, quotes and characters XML 1.0 forbids are escaped', () => {
    const nasty = 'a <b> & "c" \'d\' \u0000\u0008\u001f\uFFFE \uD800 ]]> end';
    const result = suiteResult('x&y', [
      check({ id: 'x.<id>', status: 'fail', message: nasty, expected: nasty, actual: 'line\nbreak\ttab' }),
      check({ id: 'x.warn', status: 'warn', message: nasty }),
    ]);
    for (const strict of [false, true]) {
      const xml = formatJunit([result], { strict });
      expect(xmlProblems(xml)).toEqual([]);
      expect(xml).toContain('\\u0000\\u0008\\u001f\\ufffe \\ud800');
    }
    expect(escapeXmlText('<&>')).toBe('&lt;&amp;&gt;');
    expect(escapeXmlAttribute('"\'\n\r\t')).toBe('&quot;&apos;&#10;&#13;&#9;');
  });

  test('characters outside the BMP pass through intact', () => {
    expect(escapeXmlText('emoji 😀')).toBe('emoji 😀');
  });

  test('the well-formedness check itself rejects broken XML', () => {
    expect(xmlProblems('<a><b></a>')).not.toEqual([]);
    expect(xmlProblems('<a>x & y</a>')).not.toEqual([]);
    expect(xmlProblems('<a b="<"/>')).not.toEqual([]);
    expect(xmlProblems('<a>\u0001</a>')).not.toEqual([]);
  });
});
