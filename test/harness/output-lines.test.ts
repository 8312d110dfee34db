import { expect, test } from 'vitest';
import { firstLines, firstLinesBlock, outputPart } from '../../src/harness/output-lines.js';

const stderr = `\nError: Cannot find module '/nonexistent.js'\n\n    at load (node:internal)   \n${'x'.repeat(300)}\n`;

test('the first non-blank lines, each cut at the width', () => {
  expect(firstLines(stderr, 2)).toEqual([
    "Error: Cannot find module '/nonexistent.js'",
    '    at load (node:internal)',
  ]);
  expect(firstLines(stderr)[2]).toBe(`${'x'.repeat(200)}...`);
  expect(firstLines('\n \n')).toEqual([]);
});

test('the block form names what it quotes, and is empty when there is nothing', () => {
  expect(firstLinesBlock('its stderr', stderr, 1)).toBe(
    "first lines of its stderr:\nError: Cannot find module '/nonexistent.js'",
  );
  expect(firstLinesBlock('stderr', '  \n')).toBe('');
});

test('the one-line form says how many lines were left out, or that there was nothing', () => {
  expect(outputPart('stderr', 'a\nb\nc', 2)).toBe('; stderr: a | b | ... (1 more lines)');
  expect(outputPart('stdout', '')).toBe('; nothing on stdout');
});
