import { constants, createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

/** Debian's chromium (apt-get install chromium). */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Where the bundled browser is unpacked: inside node_modules, so `npm ci` starts afresh. */
const CACHE = resolve(import.meta.dirname, '../../node_modules/.cache/wirecheck-test-browser');

/**
 * Flags for a headless browser run as root on a machine without network: without the
 * background-networking ones Chromium keeps trying to reach Google's hosts.
 */
export const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserChoice {
  readonly executablePath: string;
  /** `bundled`: the registry package @sparticuz/chromium; `system`: Debian's; `given`: a path in the env. */
  readonly source: 'bundled' | 'system' | 'given';
}

export interface FindBrowserOptions {
  /** `WIRECHECK_TEST_BROWSER`: `bundled`, `system` or a path; unset, bundled where it runs, else system. */
  readonly choice?: string | undefined;
  readonly systemPath?: string;
  readonly platform?: string;
  readonly arch?: string;
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The brotli-compressed browser inside @sparticuz/chromium, and its version, if installed. */
function bundledPackage(): { compressed: string; version: string } | undefined {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  } catch {
    return undefined;
  }
  const root = join(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { compressed: join(root, 'bin', 'chromium.br'), version };
}

/**
 * The browser of @sparticuz/chromium (a chrome-headless-shell build for Linux x64 that needs
 * only libc, libexpat, libnss3 and libnspr4 from the system), unpacked once per version. It
 * is written under a temporary name and renamed, so a concurrent run never starts half a file.
 */
async function unpackBundled(): Promise<string> {
  const bundled = bundledPackage();
  if (bundled === undefined)
    throw new Error('the devDependency @sparticuz/chromium is not installed (npm ci)');
  const target = join(CACHE, `chromium-${bundled.version}`);
  if (await isExecutable(target)) return target;
  await mkdir(CACHE, { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(bundled.compressed),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
  return target;
}

/** What the choice of a browser depends on, gathered by findBrowser (injected in tests). */
export interface BrowserMachine {
  /** `WIRECHECK_TEST_BROWSER`: `bundled`, `system`, a path, or unset. */
  readonly choice?: string | undefined;
  readonly platform: string;
  readonly arch: string;
  /** Whether the devDependency @sparticuz/chromium is installed. */
  readonly bundledInstalled: boolean;
  readonly systemPath: string;
  readonly systemExecutable: boolean;
  /** Whether `choice`, taken as a path, is an executable file. */
  readonly choiceExecutable: boolean;
}

/** Which browser to use, or why none: pure, so every platform's branch is tested on any machine. */
export function selectBrowser(
  m: BrowserMachine,
):
  | { readonly source: 'bundled' }
  | { readonly source: 'system' | 'given'; readonly path: string }
  | { readonly error: string } {
  const bundledRuns = m.platform === 'linux' && m.arch === 'x64';
  const system = () =>
    m.systemExecutable
      ? ({ source: 'system', path: m.systemPath } as const)
      : {
          error: `WIRECHECK_TEST_BROWSER=system: ${m.systemPath} is missing (Debian: apt-get install -y chromium)`,
        };
  if (m.choice === 'bundled') {
    return bundledRuns
      ? { source: 'bundled' }
      : {
          error: `WIRECHECK_TEST_BROWSER=bundled: @sparticuz/chromium ships a Linux x64 browser only, and this is ${m.platform} ${m.arch}`,
        };
  }
  if (m.choice === 'system') return system();
  if (m.choice !== undefined && m.choice !== '') {
    return m.choiceExecutable
      ? { source: 'given', path: m.choice }
      : { error: `WIRECHECK_TEST_BROWSER=${m.choice}: no executable file there` };
  }
  if (bundledRuns && m.bundledInstalled) return { source: 'bundled' };
  if (m.systemExecutable) return { source: 'system', path: m.systemPath };
  return {
    error:
      `the report.html browser test found no browser: @sparticuz/chromium runs on Linux x64 only (this is ${m.platform} ${m.arch}) ` +
      `and ${m.systemPath} is missing; install Debian's chromium (apt-get install -y chromium) or set WIRECHECK_TEST_BROWSER=/path/to/chromium`,
  };
}

/**
 * The Chromium the report.html test drives. By default the one shipped in the registry
 * package @sparticuz/chromium (a devDependency), so that `npm test` needs no browser from the
 * system; where that build cannot run (it is Linux x64 only), Debian's /usr/bin/chromium.
 * `WIRECHECK_TEST_BROWSER=bundled` or `=system` or `=/path/to/chromium` takes that one only.
 */
export async function findBrowser(options: FindBrowserOptions = {}): Promise<BrowserChoice> {
  const { choice, systemPath = SYSTEM_CHROMIUM, platform = process.platform, arch = process.arch } = options;
  const selected = selectBrowser({
    choice,
    platform,
    arch,
    bundledInstalled: bundledPackage() !== undefined,
    systemPath,
    systemExecutable: await isExecutable(systemPath),
    choiceExecutable: choice !== undefined && choice !== '' && (await isExecutable(choice)),
  });
  if ('error' in selected) throw new Error(selected.error);
  if (selected.source === 'bundled') return { executablePath: await unpackBundled(), source: 'bundled' };
  return { executablePath: selected.path, source: selected.source };
}
