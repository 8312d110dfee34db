import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `import ... from 'node:http'` that is not `import type` (the bench measures, it is no target). */
const VALUE_IMPORT = /^import\s+(?!type\b)[^;]*?from\s+'node:https?'/m;

describe('node:http is never imported as an ES module where a process start pays for it', () => {
  test('no module of src/ outside the bench imports node:http or node:https as a value', () => {
    const offenders = sources(SRC)
      .filter((f) => !relative(SRC, f).startsWith('bench/'))
      .filter((f) => VALUE_IMPORT.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    // node:https, where https is the point and one process pays once: the recording relay
    // (it talks to the real API) and the tool-server suite's channels (in the harness's own process).
    // node:http, never.
    expect(offenders).toEqual([
      'recording/relay-server.ts',
      'suites/tool-server/http.ts',
      'suites/tool-server/streamable-channel.ts',
    ]);
    for (const f of offenders)
      expect(readFileSync(join(SRC, f), 'utf8')).not.toMatch(/^import\s+(?!type\b)[^;]*?from\s+'node:http'/m);
  });

  test('the reason holds on this Node: an ESM import of node:http loads undici, getBuiltinModule does not', () => {
    const loadsUndici = (script: string) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `${script}; console.log(process.moduleLoadList.some((m) => m.includes('undici')))`,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(loadsUndici("import { request } from 'node:http'; void request")).toBe('true');
    expect(loadsUndici("const { request } = process.getBuiltinModule('node:http'); void request")).toBe(
      'false',
    );
  });
});
