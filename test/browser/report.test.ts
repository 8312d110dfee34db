import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatHtml } from '../../src/reporters/html.js';
import { BROWSER_ARGS, findBrowser } from './find-browser.js';
import { syntheticResults } from './synthetic-results.js';

const ARTIFACTS = resolve(import.meta.dirname, '../../reports/test-artifacts');

let browser: Browser | undefined;
let dir: string;
let fileUrl: string;

beforeAll(async () => {
  const { executablePath } = await findBrowser({ choice: process.env.WIRECHECK_TEST_BROWSER });
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-report-'));
  const file = join(dir, 'report.html');
  await writeFile(file, formatHtml(syntheticResults(), { strict: false }), 'utf8');
  fileUrl = pathToFileURL(file).href;
  browser = await chromium.launch({ executablePath, args: BROWSER_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Open the report, recording every request the page makes and every console error. */
async function open(): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  if (!browser) throw new Error('the browser did not start');
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(fileUrl, { waitUntil: 'load' });
  return { page, requests, errors };
}

/** A computed style property of an element, read in the page (the project's TS has no DOM types). */
function computed(el: unknown, property: string): string {
  const view = globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> };
  return view.getComputedStyle(el)[property] ?? '';
}

async function visibleStatuses(page: Page): Promise<string[]> {
  const rows = page.locator('tbody.check:visible .badge');
  return (await rows.allTextContents()).map((s) => s.trim());
}

describe('report.html in headless Chromium', () => {
  test('renders the headline counts and a row per check; the page asks for nothing but itself and logs no error', async () => {
    const { page, requests, errors } = await open();
    try {
      await expect(page.locator('#totals').textContent()).resolves.toBe(
        '3 passed, 2 failed, 1 warned, 1 skipped',
      );
      await expect(page.locator('#verdict').textContent()).resolves.toContain('FAILED: 2 failing checks');
      expect(await page.locator('tbody.check').count()).toBe(7);
      expect(await page.locator('section.suite h2').allTextContents()).toEqual(['stream-suite', 'rpc-suite']);
      await expect(page.locator('#shown').textContent()).resolves.toBe('showing 7 of 7 checks');
      // The frame holding `</script><img src=x>` stayed text: no image, and it is shown as written.
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('table.list').first().textContent()).toContain('</script><img src=x>');
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
      expect(requests).toEqual([fileUrl]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('hiding passes leaves only failures, warnings and skips, and the counts follow', async () => {
    const { page, errors } = await open();
    try {
      await page.locator('input[data-status="pass"]').uncheck();
      expect((await visibleStatuses(page)).sort()).toEqual(['fail', 'fail', 'skip', 'warn']);
      await expect(page.locator('#shown').textContent()).resolves.toBe('showing 4 of 7 checks');
      await expect(page.locator('[data-count-suite="0"]').textContent()).resolves.toBe('2');
      await page.locator('#only-problems').click();
      expect((await visibleStatuses(page)).sort()).toEqual(['fail', 'fail', 'warn']);
      await page.locator('#show-all').click();
      expect(await visibleStatuses(page)).toHaveLength(7);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('the suite filter hides a whole suite and the status counts follow', async () => {
    const { page, errors } = await open();
    try {
      await page.locator('input[data-suite="0"]').uncheck();
      expect(await page.locator('section.suite:visible h2').allTextContents()).toEqual(['rpc-suite']);
      expect((await visibleStatuses(page)).sort()).toEqual(['fail', 'pass', 'skip']);
      await expect(page.locator('[data-count-status="pass"]').textContent()).resolves.toBe('1');
      await expect(page.locator('[data-count-status="warn"]').textContent()).resolves.toBe('0');
      await expect(page.locator('#shown').textContent()).resolves.toBe('showing 3 of 7 checks');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test('the marked frame and the marked JSON-RPC message are highlighted', async () => {
    const { page } = await open();
    try {
      const frame = page.locator('svg.timeline g.frame.marked');
      expect(await frame.count()).toBe(1);
      expect(await frame.getAttribute('data-index')).toBe('4');
      expect(await frame.locator('circle').evaluate(computed, 'fill')).toBe('rgb(176, 0, 32)');
      const listed = page.locator('table.list tr.marked');
      expect(await listed.textContent()).toContain('message_delta');
      const message = page.locator('.sessions .msg.marked');
      expect(await message.count()).toBe(1);
      expect(await message.textContent()).toContain('"for":"B"');
      expect(await message.evaluate(computed, 'borderTopColor')).toBe('rgb(176, 0, 32)');
      // Sessions are columns: A's messages in column 1, B's in column 2.
      const columns: string[] = [];
      for (const m of await page.locator('.sessions .msg').all())
        columns.push(await m.evaluate(computed, 'gridColumnStart'));
      expect(columns).toEqual(['1', '2', '1', '1']);
    } finally {
      await page.close();
    }
  });
});
