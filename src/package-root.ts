import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of wirecheck's package.json, where `bin/`, `dist/` and `fixtures/` are. Found by
 * walking up from this module's own file, so it holds wherever the module runs from: `src/`
 * (the tests), `dist/`, or a bundle under `dist/` (rolldown.config.ts). This is the one module
 * that finds files from its own place; the build refuses any other (`placeIndependent`).
 */
const found = packageRootAbove(dirname(fileURLToPath(import.meta.url)));
export const PACKAGE_ROOT: string = found.dir;

/** The version in that package.json (version.ts's, where the bundles do not write it in). */
export const PACKAGE_VERSION: string = found.version;

/** `bin/wirecheck.js`: what the reference targets and mocks are started through. */
export const WIRECHECK_BIN: string = join(PACKAGE_ROOT, 'bin', 'wirecheck.js');

function packageRootAbove(start: string): { dir: string; version: string } {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    const fields = existsSync(manifest) ? wirecheckManifest(manifest) : undefined;
    if (fields !== undefined) {
      if (typeof fields.version !== 'string') {
        throw new Error(`wirecheck's package.json (${manifest}) has no version string`);
      }
      return { dir, version: fields.version };
    }
    if (dirname(dir) === dir) {
      throw new Error(`wirecheck's package.json was not found in ${start} or any folder above it`);
    }
  }
}

/** The fields of `manifest` when it is wirecheck's package.json, else undefined. */
function wirecheckManifest(manifest: string): { version?: unknown } | undefined {
  try {
    const fields = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
    return fields.name === 'wirecheck' ? fields : undefined;
  } catch {
    return undefined;
  }
}
