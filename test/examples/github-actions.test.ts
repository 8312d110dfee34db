import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';

const WORKFLOW = new URL('../../examples/github-actions/wirecheck.yml', import.meta.url);

/** A GitHub Actions expression as written in the workflow. */
const expr = (name: string) => `\${{ ${name} }}`;

/** The `run:` lines of the workflow (no YAML parser: every run step here is one line). */
async function runLines(): Promise<string[]> {
  const text = await readFile(WORKFLOW, 'utf8');
  return [...text.matchAll(/^\s*(?:- )?run:\s*(.+)$/gm)].map((m) => (m[1] ?? '').trim());
}

/** Split a command line into words, keeping "quoted strings" and ${{ expressions }} whole. */
function words(line: string): string[] {
  const expressions: string[] = [];
  const masked = line.replace(/\$\{\{[^}]*\}\}/g, (e) => `\u0000${expressions.push(e) - 1}\u0000`);
  return [...masked.matchAll(/"[^"]*"|\S+/g)].map((m) =>
    m[0].replace(/\u0000(\d+)\u0000/g, (_, n: string) => expressions[Number(n)] ?? ''),
  );
}

function program(): Command {
  const ignore = () => {};
  return buildProgram(
    {
      stdout: { write: ignore },
      stderr: { write: ignore },
      stdin: Readable.from([]),
      env: {},
      deps: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: ignore }),
    },
    ignore,
  );
}

describe('examples/github-actions/wirecheck.yml', () => {
  test('runs a matrix of 4 shards on Node 24, uploads each shard, merges them and publishes the JUnit file', async () => {
    const text = await readFile(WORKFLOW, 'utf8');
    expect(text).toMatch(/shard: \[1, 2, 3, 4\]/);
    expect(text).toMatch(/node-version: 24/);
    expect(text).toContain('actions/upload-artifact@');
    expect(text).toContain('actions/download-artifact@');
    expect(text).toMatch(/report_paths: reports\/merged\/junit\.xml/);
  });

  test('every wirecheck command it runs is a real command with real options', async () => {
    const lines = (await runLines()).filter((l) => l.startsWith('npx wirecheck '));
    expect(lines.map((l) => words(l)[2])).toEqual(['test', 'merge-reports']);
    const commands = new Map(program().commands.map((c) => [c.name(), c]));
    for (const line of lines) {
      const [, , name, ...rest] = words(line);
      const command = commands.get(name ?? '');
      expect(command, line).toBeDefined();
      const known = new Set(command?.options.map((o) => o.long));
      const flags = rest.filter((w) => w.startsWith('--'));
      expect(
        flags.filter((f) => !known.has(f)),
        line,
      ).toEqual([]);
    }
  });

  test('the shards share one seed and each writes its reports where the upload step looks', async () => {
    const [test_] = (await runLines()).filter((l) => l.startsWith('npx wirecheck test '));
    const args = words(test_ ?? '');
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(value('--shard')).toBe(`${expr('matrix.shard')}/4`);
    expect(value('--seed')).toBe(expr('github.run_number'));
    expect(value('--report-dir')).toBe(`reports/shard-${expr('matrix.shard')}`);
    const text = await readFile(WORKFLOW, 'utf8');
    expect(text).toContain(`path: reports/shard-${expr('matrix.shard')}`);
    const merge = (await runLines()).find((l) => l.startsWith('npx wirecheck merge-reports'));
    expect(merge).toBe('npx wirecheck merge-reports --out reports/merged shards');
  });
});
