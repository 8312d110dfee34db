import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

// The layers docs/ARCHITECTURE.md states, checked on every import of src/.

const SRC = resolve(import.meta.dirname, '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The top folders of src/ (or package names) that the files of `folder` import. */
function importedBy(folder: string): Set<string> {
  const found = new Set<string>();
  for (const file of filesUnder(join(SRC, folder))) {
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)) {
      if (!spec!.startsWith('.')) {
        found.add(spec!.startsWith('node:') ? 'node' : spec!);
        continue;
      }
      const top = relative(SRC, resolve(file, '..', spec!)).split('/')[0]!;
      if (top !== folder) found.add(top.replace(/\.js$/, ''));
    }
  }
  return found;
}

test('the protocol layer imports only zod and eventsource-parser', () => {
  expect([...importedBy('protocol')].sort()).toEqual(['eventsource-parser', 'zod']);
});

test('the harness never imports a suite, a reporter or the CLI', () => {
  const imported = importedBy('harness');
  for (const above of ['suites', 'reporters', 'cli', 'api', 'testing']) expect(imported).not.toContain(above);
});

test('no suite imports the CLI or a reporter, and no mock imports a suite', () => {
  for (const above of ['cli', 'reporters']) expect(importedBy('suites')).not.toContain(above);
  expect(importedBy('mocks')).not.toContain('suites');
});

test('the mocks share only the HTTP layer of the servers, not the reference tool server', () => {
  const imports = filesUnder(join(SRC, 'mocks')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from '([^']*servers\/[^']+)'/g)].map(([, spec]) => spec!),
  );
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((spec) => !spec.includes('servers/http/'))).toEqual([]);
});
