// The second step of `npm run build`, after tsc: the programs a conformance run starts once per
// case (the reference targets, through bin/wirecheck.js, and the stdio mock tool server), and the
// CLI itself, bundled from dist/ into dist/bundle/. Node.js resolves and loads each of the
// modules they need on every start (~150 for a target, ~380 for the CLI); from a few files a
// target's start takes about half the CPU, and the CLI's (`wirecheck --version`) 0.53 -> 0.44 s
// (docs/performance.md, "Per-case cost" and "The CLI from a bundle").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'rolldown';

const DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/**
 * The bundle lives in another folder than the modules it was made from, so a module under `dist`
 * that finds a file from its own place (`import.meta`) would look in the wrong place: the build
 * fails on one. `package-root.js` is the exception, made for it: it walks up to package.json
 * from wherever it runs. The version is written in as a value (no file read at each start).
 */
export function placeIndependent(dist: string, version: string): Plugin {
  const versionModule = `${dist}version.js`;
  const packageRootModule = `${dist}package-root.js`;
  return {
    name: 'wirecheck-place-independent',
    load(id) {
      if (id === versionModule) return `export const VERSION = ${JSON.stringify(version)};\n`;
      return null;
    },
    transform(code, id) {
      if (
        id.startsWith(dist) &&
        id !== packageRootModule &&
        /\bimport\.meta\.(url|dirname|filename)\b/.test(code)
      ) {
        this.error(`${id} finds files from its own place (import.meta), which moves in the bundle`);
      }
      return null;
    },
  };
}

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// Not emptied first: a test run may rebuild while targets started from the bundle still run.
const output = { dir: `${DIST}bundle`, format: 'esm' } as const;

export default defineConfig([
  {
    input: {
      'target-main': `${DIST}cli/target-main.js`,
      'mock-tools-stdio': `${DIST}mocks/tools/stdio-process.js`,
    },
    platform: 'node',
    plugins: [placeIndependent(DIST, version)],
    output,
  },
  {
    // The whole CLI. Its packages stay outside (fastify, bundled, fails to find its own
    // package.json); the ~380 modules of dist/ are what a start spent its time resolving and
    // reading.
    input: { 'cli-main': `${DIST}cli/main.js` },
    platform: 'node',
    external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('node:'),
    plugins: [placeIndependent(DIST, version)],
    output,
  },
]);
