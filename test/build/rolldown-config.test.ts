import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'rolldown';
import { afterEach, describe, expect, test } from 'vitest';
import { placeIndependent } from '../../rolldown.config.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A folder standing for dist/, with `files` in it; bundles `main.js` and gives the code. */
async function bundle(files: Record<string, string>): Promise<string> {
  dir = `${mkdtempSync(join(tmpdir(), 'wc-bundle-'))}/`;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const out = await build({
    input: join(dir, 'main.js'),
    platform: 'node',
    plugins: [placeIndependent(dir, '9.8.7')],
    write: false,
  });
  return out.output.map((chunk) => (chunk.type === 'chunk' ? chunk.code : '')).join('\n');
}

describe('the bundles of the per-case programs and the CLI (rolldown.config.ts)', () => {
  test('fails on a module that finds a file from its own place', async () => {
    await expect(
      bundle({
        'main.js': "import { here } from './where.js';\nconsole.log(here);\n",
        'where.js': "export const here = new URL('../fixtures/', import.meta.url).href;\n",
      }),
    ).rejects.toThrow(/where\.js finds files from its own place/);
  });

  test('writes the version in as a value instead of reading package.json', async () => {
    const code = await bundle({
      'main.js': "import { VERSION } from './version.js';\nconsole.log(VERSION);\n",
      'version.js':
        "import { createRequire } from 'node:module';\nexport const VERSION = createRequire(import.meta.url)('../package.json').version;\n",
    });
    expect(code).toContain('"9.8.7"');
    expect(code).not.toContain('package.json');
  });

  test('lets package-root.js, and it alone, find its own place', async () => {
    const code = await bundle({
      'main.js': "import { ROOT } from './package-root.js';\nconsole.log(ROOT);\n",
      'package-root.js': "export const ROOT = new URL('.', import.meta.url).href;\n",
    });
    expect(code).toContain('import.meta.url');
  });
});
