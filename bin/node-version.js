// The Node.js version check every wirecheck program runs before it loads anything else.
// It is plain JavaScript that any Node able to load an ES module can run, so that an old Node
// gets one clear message instead of a crash deep inside a dependency (a missing export at
// link time, `Map.groupBy is not a function` minutes into a test run). The version wanted is
// the package's own `engines.node`, read from package.json: one source of truth.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PACKAGE_JSON = new URL('../package.json', import.meta.url);
/** The Node.js binary a checkout of wirecheck gets from its devDependency `node`. */
const CHECKOUT_NODE = new URL('../node_modules/.bin/node', import.meta.url);

/**
 * The lowest Node.js version the package supports, from `engines.node` (`>=MAJOR.MINOR`).
 * @returns {[number, number]}
 */
export function requiredNode() {
  const engines = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')).engines || {};
  const match = /^>=\s*(\d+)\.(\d+)/.exec(String(engines.node || ''));
  if (!match) throw new Error(`package.json: engines.node must read ">=MAJOR.MINOR", not ${engines.node}`);
  return [Number(match[1]), Number(match[2])];
}

/**
 * What is wrong with this Node.js for wirecheck, or undefined when it is recent enough.
 * @param {string} [version] a Node.js version such as `20.20.2` (default: this process's)
 * @param {string} [execPath] where that Node.js is (default: this process's)
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version = process.versions.node, execPath = process.execPath) {
  const [major, minor] = requiredNode();
  const [haveMajor, haveMinor] = version.split('.').map(Number);
  if (haveMajor > major || (haveMajor === major && haveMinor >= minor)) return undefined;
  const checkout = existsSync(CHECKOUT_NODE)
    ? [
        `  - this checkout has one in ${fileURLToPath(CHECKOUT_NODE)}: run npx wirecheck ... or the npm`,
        '    scripts (npm start, npm test), which put it first on PATH',
      ]
    : [
        '  - in your project: npm i -D node@24 (a registry package that ships the Node.js 24 binary;',
        '    npm scripts and npx put node_modules/.bin first on PATH, so they then run on it)',
      ];
  return [
    `wirecheck needs Node.js >= ${major}.${minor}, but this is Node.js ${version} (${execPath}).`,
    'Run it on a newer Node.js, for example one of these:',
    ...checkout,
    '  - nvm install 24, or Node.js 24 from https://nodejs.org',
    '  - in GitHub Actions: actions/setup-node with node-version: 24',
  ].join('\n');
}

/** Exit with status 2 (the target cannot run: here wirecheck itself) when Node.js is too old. */
export function exitUnlessSupportedNode() {
  const problem = nodeVersionProblem();
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
