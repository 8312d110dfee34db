// The second step of `npm run build`, after tsc: the programs a conformance run starts once per
// case (the reference targets, through bin/wirecheck.js, and the stdio mock tool server) bundled
// from dist/ into dist/targets/. Node.js resolves and loads each of the ~150 modules they need
// on every start; from a few files a start takes about half the CPU (docs/performance.md,
// "Per-case cost").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'rolldown';

const DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/**
 * The bundle lives in another folder than the modules it was made from, so a module under `dist`
 * that finds a file from its own place (`import.meta`) would look in the wrong place: the build
 * fails on one. The version, the one such module a target needs, is written in as a value.
 */
export function placeIndependent(dist: string, version: string): Plugin {
  const versionModule = `${dist}version.js`;
  return {
    name: 'wirecheck-place-independent',
    load(id) {
      if (id === versionModule) return `export const VERSION = ${JSON.stringify(version)};\n`;
      return null;
    },
    transform(code, id) {
      if (id.startsWith(dist) && /\bimport\.meta\.(url|dirname|filename)\b/.test(code)) {
        this.error(`${id} finds files from its own place (import.meta), which moves in the bundle`);
      }
      return null;
    },
  };
}

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export default defineConfig({
  input: {
    'target-main': `${DIST}cli/target-main.js`,
    'mock-tools-stdio': `${DIST}mocks/tools/stdio-process.js`,
  },
  platform: 'node',
  plugins: [placeIndependent(DIST, version)],
  // Not emptied first: a test run may rebuild while targets started from the bundle still run.
  output: { dir: `${DIST}targets`, format: 'esm' },
});
