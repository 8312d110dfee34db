import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SUITES } from '../suites/registry.js';
import { CHECKS_DOC_PATH, formatChecksMarkdown } from './checks.js';

/** `npm run docs:checks`: regenerate docs/checks.md (in the package root) from the registry. */
export async function main(): Promise<number> {
  const path = resolve(import.meta.dirname, '../..', CHECKS_DOC_PATH);
  await writeFile(path, formatChecksMarkdown(SUITES), 'utf8');
  process.stdout.write(`wrote ${path}\n`);
  return 0;
}

process.exitCode = await main();
