import { describe, expect, test } from 'vitest';
import { createProgress, formatStatusLine, isLiveTerminal } from '../../src/reporters/progress.js';

function fakeTerminal(columns = 80) {
  const writes: string[] = [];
  return { writes, stream: { write: (s: string) => writes.push(s), isTTY: true, columns } };
}

const ERASE = '\r\u001b[K';
const state = { suite: 'runner', done: 3, total: 47, current: 'runner.output.blank' };

describe('progress on a terminal', () => {
  test('the status line is drawn in place, erased before each printed line and drawn again after it', () => {
    const { writes, stream } = fakeTerminal();
    const progress = createProgress(stream, { live: true, color: false });
    progress.status(state);
    progress.print('  ✓ PASS  runner.output.blank  3 ms');
    progress.clear();
    progress.print('suite runner: done');
    expect(writes).toEqual([
      `${ERASE}▸ runner 3/47 runner.output.blank`,
      `${ERASE}  ✓ PASS  runner.output.blank  3 ms\n`,
      `${ERASE}▸ runner 3/47 runner.output.blank`,
      ERASE,
      'suite runner: done\n',
    ]);
  });

  test('the status line fits in the terminal and cannot carry control characters', () => {
    expect(formatStatusLine({ ...state, current: 'x'.repeat(100) }, 30)).toHaveLength(29);
    expect(formatStatusLine({ ...state, current: 'x'.repeat(100) }, 30).endsWith('…')).toBe(true);
    expect(formatStatusLine({ ...state, current: 'a\u001b[2Jb' }, 80)).toBe('▸ runner 3/47 a\\u001b[2Jb');
  });

  test('colour dims the status line only when colour is on', () => {
    const { writes, stream } = fakeTerminal();
    createProgress(stream, { live: true, color: true }).status(state);
    expect(writes).toEqual([`${ERASE}\u001b[2m▸ runner 3/47 runner.output.blank\u001b[0m`]);
  });
});

describe('progress elsewhere', () => {
  test('not a terminal: only the printed lines, no status line and no escape codes', () => {
    const writes: string[] = [];
    const progress = createProgress({ write: (s: string) => writes.push(s) }, { live: false, color: false });
    progress.status(state);
    progress.print('line');
    progress.clear();
    expect(writes).toEqual(['line\n']);
  });

  test('a status line needs a terminal that is not TERM=dumb', () => {
    expect(isLiveTerminal({ isTTY: true }, {})).toBe(true);
    expect(isLiveTerminal({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(isLiveTerminal({ isTTY: false }, {})).toBe(false);
    expect(isLiveTerminal({}, {})).toBe(false);
  });
});

describe('progress on a terminal of unknown size', () => {
  test('0 columns (a pseudo-terminal without a size) falls back to 80', () => {
    const { writes, stream } = fakeTerminal(0);
    createProgress(stream, { live: true, color: false }).status(state);
    expect(writes).toEqual([`${ERASE}▸ runner 3/47 runner.output.blank`]);
  });
});
