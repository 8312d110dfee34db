import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findBrowser } from './find-browser.js';

const MISSING = '/nonexistent/chromium';

let dir: string;
let fakeBrowser: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-find-browser-'));
  fakeBrowser = join(dir, 'chromium');
  await writeFile(fakeBrowser, '#!/bin/sh\necho fake\n', { mode: 0o755 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the browser of the report.html test', () => {
  test('on Linux x64 it is the one shipped in @sparticuz/chromium, unpacked and runnable, even with no system browser', async () => {
    const choice = await findBrowser({ systemPath: MISSING, platform: 'linux', arch: 'x64' });
    expect(choice.source).toBe('bundled');
    expect(choice.executablePath).toContain('node_modules/.cache/wirecheck-test-browser/chromium-');
    // A second call reuses the unpacked file.
    await expect(findBrowser({ choice: 'bundled' })).resolves.toEqual(choice);
    const version = execFileSync(choice.executablePath, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    expect(version).toMatch(/^Chromium \d+\./);
  }, 60_000);

  test('where the bundled build cannot run, the system browser is used', async () => {
    await expect(findBrowser({ systemPath: fakeBrowser, platform: 'linux', arch: 'arm64' })).resolves.toEqual(
      {
        executablePath: fakeBrowser,
        source: 'system',
      },
    );
  });

  test('with no browser at all the error names both ways to get one', async () => {
    await expect(findBrowser({ systemPath: MISSING, platform: 'darwin', arch: 'arm64' })).rejects.toThrow(
      /@sparticuz\/chromium runs on Linux x64 only \(this is darwin arm64\) and \/nonexistent\/chromium is missing; install Debian's chromium/,
    );
  });

  test('WIRECHECK_TEST_BROWSER picks one browser and never falls back to another', async () => {
    await expect(findBrowser({ choice: 'system', systemPath: MISSING })).rejects.toThrow(
      'WIRECHECK_TEST_BROWSER=system: /nonexistent/chromium is missing',
    );
    await expect(findBrowser({ choice: 'bundled', systemPath: fakeBrowser, arch: 'arm64' })).rejects.toThrow(
      /WIRECHECK_TEST_BROWSER=bundled: @sparticuz\/chromium ships a Linux x64 browser only/,
    );
    await expect(findBrowser({ choice: MISSING })).rejects.toThrow(
      'WIRECHECK_TEST_BROWSER=/nonexistent/chromium: no executable file there',
    );
    await expect(findBrowser({ choice: fakeBrowser, systemPath: MISSING })).resolves.toEqual({
      executablePath: fakeBrowser,
      source: 'given',
    });
    await expect(findBrowser({ choice: 'system', systemPath: fakeBrowser })).resolves.toEqual({
      executablePath: fakeBrowser,
      source: 'system',
    });
  });
});
