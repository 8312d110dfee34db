import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { type BrowserMachine, findBrowser, selectBrowser } from './find-browser.js';

const SYSTEM = '/usr/bin/chromium';

/** A machine as selectBrowser sees it: Linux x64 with the bundled package and no system browser, unless told. */
function machine(over: Partial<BrowserMachine> = {}): BrowserMachine {
  return {
    platform: 'linux',
    arch: 'x64',
    bundledInstalled: true,
    systemPath: SYSTEM,
    systemExecutable: false,
    choiceExecutable: false,
    ...over,
  };
}

describe('which browser the report.html test drives (pure: every platform, on any machine)', () => {
  test('on Linux x64 the one shipped in @sparticuz/chromium, even with no system browser', () => {
    expect(selectBrowser(machine())).toEqual({ source: 'bundled' });
  });

  test('where the bundled build cannot run, or is not installed, the system browser', () => {
    const system = { source: 'system', path: SYSTEM };
    expect(selectBrowser(machine({ arch: 'arm64', systemExecutable: true }))).toEqual(system);
    expect(selectBrowser(machine({ platform: 'darwin', systemExecutable: true }))).toEqual(system);
    expect(selectBrowser(machine({ bundledInstalled: false, systemExecutable: true }))).toEqual(system);
  });

  test('with no browser at all the error names both ways to get one', () => {
    expect(selectBrowser(machine({ platform: 'darwin', arch: 'arm64' }))).toEqual({
      error: expect.stringMatching(
        /@sparticuz\/chromium runs on Linux x64 only \(this is darwin arm64\) and \/usr\/bin\/chromium is missing; install Debian's chromium/,
      ),
    });
  });

  test('WIRECHECK_TEST_BROWSER picks one browser and never falls back to another', () => {
    expect(selectBrowser(machine({ choice: 'system' }))).toEqual({
      error:
        'WIRECHECK_TEST_BROWSER=system: /usr/bin/chromium is missing (Debian: apt-get install -y chromium)',
    });
    expect(selectBrowser(machine({ choice: 'bundled', arch: 'arm64', systemExecutable: true }))).toEqual({
      error: expect.stringMatching(
        /WIRECHECK_TEST_BROWSER=bundled: @sparticuz\/chromium ships a Linux x64 browser only, and this is linux arm64/,
      ),
    });
    expect(selectBrowser(machine({ choice: '/nonexistent/chromium' }))).toEqual({
      error: 'WIRECHECK_TEST_BROWSER=/nonexistent/chromium: no executable file there',
    });
    expect(selectBrowser(machine({ choice: '/opt/chromium', choiceExecutable: true }))).toEqual({
      source: 'given',
      path: '/opt/chromium',
    });
    expect(selectBrowser(machine({ choice: 'system', systemExecutable: true }))).toEqual({
      source: 'system',
      path: SYSTEM,
    });
  });
});

test('on this machine the browser found runs: the bundled one on Linux x64, the system one elsewhere', async () => {
  const choice = await findBrowser();
  const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
  expect(choice.source).toEqual(
    process.env.WIRECHECK_TEST_BROWSER ? expect.any(String) : linuxX64 ? 'bundled' : 'system',
  );
  // A second call reuses what the first found (the bundled browser is unpacked once).
  await expect(findBrowser()).resolves.toEqual(choice);
  const version = execFileSync(choice.executablePath, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  expect(version).toMatch(/Chrom(e|ium)/);
}, 60_000);
