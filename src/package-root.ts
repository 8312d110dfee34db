import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of wirecheck's package.json, where `bin/`, `dist/` and `fixtures/` are. Found by
 * walking up from this module's own file, so it holds wherever the module runs from: `src/`
 * (the tests), `dist/`, or a bundle under `dist/` (rolldown.config.ts). This is the one module
 * that finds files from its own place; the build refuses any other (`placeIndependent`).
 */
export const PACKAGE_ROOT: string = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

/** `bin/wirecheck.js`: what the reference targets and mocks are started through. */
export const WIRECHECK_BIN: string = join(PACKAGE_ROOT, 'bin', 'wirecheck.js');

function packageRootAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && isWirecheck(manifest)) return dir;
    if (dirname(dir) === dir) {
      throw new Error(`wirecheck's package.json was not found in ${start} or any folder above it`);
    }
  }
}

function isWirecheck(manifest: string): boolean {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'wirecheck';
  } catch {
    return false;
  }
}
