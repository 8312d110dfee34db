import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  shownUntrusted,
  withoutTerminalControls,
  withoutWorkflowCommands,
  workflowCommandFilter,
} from '../../src/reporters/untrusted-text.js';
import { cpuMs, GROWTH_BOUND, SIZE_FACTOR, sizesSideBySide } from '../side-by-side.js';

// A target's text reaches the console: its controls must not move, restyle or reorder what a
// terminal shows, and under GitHub Actions no line of it may be a workflow command.

describe('withoutTerminalControls', () => {
  test('the bidirectional controls and the line and paragraph separators are shown as \\uXXXX', () => {
    const controls = [
      '\u061c',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u2028',
      '\u2029',
    ];
    for (const c of controls) {
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
      expect(withoutTerminalControls(`a${c}b`)).toBe(`a\\u${hex}b`);
    }
    // What `exe.txt` would be shown as `txt.exe` by: the override, as text.
    expect(withoutTerminalControls('report\u202Eexe.txt')).toBe('report\\u202eexe.txt');
  });

  test('letters of right-to-left scripts, joiners and other text stay as they are', () => {
    const text = 'שלום مرحبا e\u0301 \u200d\u200c 日本 ✓ tab\there';
    expect(withoutTerminalControls(text)).toBe(text);
  });
});

/**
 * The commands the GitHub Actions runner would act on in `lines` (actions/runner: a line is
 * trimmed and starts with `::`, or holds `##[` anywhere), read as it reads them.
 */
function commandsIn(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => line.trimStart().startsWith('::') || line.includes('##['));
}

describe('withoutWorkflowCommands', () => {
  test('a line that would be a command is shown with its first colon or its bracket escaped', () => {
    const text =
      '::add-mask::FAIL\n   ::set-output name=verdict::pass\n\t::error title=x::y\nok ##[warning]hi';
    const shown = withoutWorkflowCommands(text);
    expect(commandsIn(shown)).toEqual([]);
    expect(shown).toBe(
      '\\u003a:add-mask::FAIL\n   \\u003a:set-output name=verdict::pass\n\t\\u003a:error title=x::y\nok ##\\u005bwarning]hi',
    );
  });

  test('what the runner may skip before the colons or between the hashes is seen through', () => {
    const shown = withoutWorkflowCommands('\u00a0\u200b\u00ad::error::x\n#\u00ad#[warning]y\n\u3000::z::');
    expect(shown).toBe('\u00a0\u200b\u00ad\\u003a:error::x\n#\u00ad#\\u005bwarning]y\n\u3000\\u003a:z::');
  });

  test('text with no command in it is left as it is, colons and hashes inside a line included', () => {
    const text = 'expected: tool_use_id "a::b"\n  at http://127.0.0.1:80/x#y [1]';
    expect(withoutWorkflowCommands(text)).toBe(text);
  });

  test('JSON stays the same JSON', () => {
    const value = { message: '::error::x\n##[warning]y', list: ['::a::b', '##[group]'] };
    const shown = withoutWorkflowCommands(JSON.stringify(value, null, 2));
    expect(JSON.parse(shown)).toEqual(value);
  });

  test('thousands of blank lines cost no more than their length', () => {
    const texts = new Map<number, string>();
    const text = (n: number) => {
      if (!texts.has(n)) texts.set(n, `${'\n'.repeat(n)}${' '.repeat(n)}#${' '.repeat(n)}x`);
      return texts.get(n)!;
    };
    expect(withoutWorkflowCommands(text(200_000))).toBe(text(200_000));
    const { ratio, says } = sizesSideBySide((n) => withoutWorkflowCommands(text(n)), 5_000);
    expect(ratio, says).toBeLessThan(GROWTH_BOUND);
  });
});

describe('workflowCommandFilter', () => {
  test('a command split over chunks is found as in one text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('::', ':', '#', '##', '[', '\n', ' ', '\u200b', 'x', 'error', '\r'), {
          maxLength: 30,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (pieces, cuts) => {
          const text = pieces.join('');
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => text.slice(from, [...at, text.length][i]));
          const filter = workflowCommandFilter();
          const shown = chunks.map(filter).join('');
          expect(commandsIn(shown)).toEqual([]);
          // A text in one chunk is filtered as withoutWorkflowCommands filters it.
          expect(workflowCommandFilter()(text)).toBe(withoutWorkflowCommands(text));
        },
      ),
    );
  });

  test('a colon that continues a line is not a line start', () => {
    const filter = workflowCommandFilter();
    expect([filter('expected'), filter(': a'), filter('\n'), filter('  '), filter('::x')].join('')).toBe(
      'expected: a\n  \\u003a:x',
    );
  });
  test('a chunked text is filtered as the whole text is', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('::', ':', '#', '##', '[', '\n', ' ', '\u200b', 'x', '\r'), {
          maxLength: 30,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (pieces, cuts) => {
          const text = pieces.join('');
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => text.slice(from, [...at, text.length][i]));
          const filter = workflowCommandFilter();
          expect(chunks.map(filter).join('')).toBe(withoutWorkflowCommands(text));
        },
      ),
    );
  });

  // Each chunk used to be read again with the whole blank start of its line before it: 20,000
  // writes of five spaces took 301 s. SIZE_FACTOR times the writes cost about as many times the
  // time now, its square when each is read again. Each size is written by many filters in turn,
  // so that both times are long (50 ms and more); times are CPU time (see side-by-side.ts). The
  // sizes are timed in turn; a run of the larger gives up past GROWTH_BOUND times the smaller.
  test.each([
    ['a line start', '', '::x::', '\\u003a:x::'],
    ['a `#` that `##[` may complete', '#', '#[x]', '#\\u005bx]'],
  ])(
    'blanks written in many pieces after %s are not read again with each piece',
    (_, head, tail, shownTail) => {
      const FILTERS = 500;
      const FEW = 100;
      const MANY = SIZE_FACTOR * FEW;
      /** `writes` pieces of five blanks after `head`, then `tail`, by each filter: the last one's text, and the CPU ms. */
      const written = (writes: number, giveUpMs = Number.POSITIVE_INFINITY) => {
        let shown = '';
        let done = 0;
        const started = cpuMs();
        for (let f = 0; f < FILTERS; f++) {
          const filter = workflowCommandFilter();
          const out: string[] = [filter(`\n${head}`)];
          for (done = 0; done < writes; done++) {
            if (done % 100 === 0 && cpuMs() - started > giveUpMs) break;
            out.push(filter('     '));
          }
          out.push(filter(tail));
          shown = out.join('');
        }
        return { shown, ms: cpuMs() - started, done };
      };
      written(FEW); // warms the code up, so that neither measured size pays for it
      let small = Number.POSITIVE_INFINITY;
      let large = { shown: '', ms: Number.POSITIVE_INFINITY, done: MANY };
      for (let run = 0; run < 3 && large.done === MANY; run++) {
        small = Math.min(small, written(FEW).ms);
        const next = written(MANY, GROWTH_BOUND * small);
        if (next.done < MANY || next.ms < large.ms) large = next;
      }
      const says = `${FEW} writes: ${small.toFixed(1)} ms; ${large.done} of ${MANY}: ${large.ms.toFixed(1)} ms (by ${FILTERS} filters each)`;
      expect(large.done, says).toBe(MANY);
      expect(large.ms / small, says).toBeLessThan(GROWTH_BOUND);
      expect(large.shown).toBe(`\n${head}${' '.repeat(5 * MANY)}${shownTail}`);
    },
    // About a second of CPU, which a loaded machine stretched past the default 30 s: a hang is caught.
    120_000,
  );
});

describe('shownUntrusted', () => {
  test('terminal controls always; workflow commands only where the GitHub Actions runner reads', () => {
    const text = '::add-mask::FAIL\u001b]52;c;cHduZWQ=\u0007';
    expect(shownUntrusted(text, {})).toBe('::add-mask::FAIL\\u001b]52;c;cHduZWQ=\\u0007');
    expect(shownUntrusted(text, { GITHUB_ACTIONS: 'true' })).toBe(
      '\\u003a:add-mask::FAIL\\u001b]52;c;cHduZWQ=\\u0007',
    );
  });

  test('a line feed is shown as \\n: the text stays on the line it is part of', () => {
    const text = 'a.json\nfixtures/b.json: ok: forged\r\n::add-mask::FAIL';
    expect(shownUntrusted(text, {})).toBe('a.json\\nfixtures/b.json: ok: forged\\u000d\\n::add-mask::FAIL');
    expect(shownUntrusted(text, { GITHUB_ACTIONS: 'true' })).not.toContain('\n');
  });
});
