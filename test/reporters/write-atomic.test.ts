import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { WirecheckError } from '../../src/harness/errors.js';
import { writeReports } from '../../src/reporters/write.js';
import { mixedResult } from './fixtures.js';

/** The file whose write runs out of room (a full disk), as the real writeFile does: part of it is on disk. */
const disk = vi.hoisted(() => ({ fullAt: undefined as string | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const writeFile: typeof real.writeFile = async (path, data, options) => {
    const full = disk.fullAt;
    if (full !== undefined && typeof path === 'string' && basename(path).startsWith(full)) {
      await real.writeFile(path, String(data).slice(0, 100), options);
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
    }
    return real.writeFile(path, data, options);
  };
  return { ...real, writeFile, default: { ...real, writeFile } };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-atomic-'));
});
afterEach(async () => {
  disk.fullAt = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function contents(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(path.slice(dir.length + 1), await readFile(path, 'utf8'));
    }
  }
  return files;
}

describe('reports are written whole or not at all', () => {
  test.each(['report.html', 'junit.xml', 'summary.json', 'results.json'])(
    'a disk full while writing %s: the earlier reports stay as they were, no part of the new ones at a report path',
    async (full) => {
      await writeReports(
        dir,
        [
          { ...mixedResult('a'), seed: 1 },
          { ...mixedResult('b'), seed: 1 },
        ],
        {
          strict: false,
        },
      );
      const before = await contents();
      disk.fullAt = full;
      const error = await writeReports(
        dir,
        [
          { ...mixedResult('a'), seed: 2 },
          { ...mixedResult('b'), seed: 2 },
        ],
        {
          strict: false,
        },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WirecheckError);
      expect((error as WirecheckError).code).toBe('WC_REPORT_WRITE');
      expect((error as WirecheckError).message).toContain('ENOSPC');
      // No temporary file left, no file cut short, no new file beside old ones.
      expect(await contents()).toEqual(before);
    },
  );

  test('a first run that fails to write leaves no report file at all', async () => {
    disk.fullAt = 'report.html';
    const error = await writeReports(join(dir, 'out'), [mixedResult()], { strict: false }).catch(
      (e: unknown) => e,
    );
    expect((error as WirecheckError).message).toContain(join(dir, 'out', 'report.html'));
    expect(await readdir(join(dir, 'out'))).toEqual([]);
  });
});
