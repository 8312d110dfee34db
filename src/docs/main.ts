import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SUITES } from '../suites/registry.js';
import { CHECKS_DOC_PATH, formatChecksMarkdown } from './checks.js';
import { formatRevisionsMarkdown, REVISIONS_DOC_PATH } from './revisions.js';

/** `npm run docs:checks`: regenerate docs/checks.md and docs/mcp-revisions.md (in the package root) from the registry. */
export async function main(): Promise<number> {
  for (const [doc, text] of [
    [CHECKS_DOC_PATH, formatChecksMarkdown(SUITES)],
    [REVISIONS_DOC_PATH, formatRevisionsMarkdown(SUITES)],
  ] as const) {
    const path = resolve(import.meta.dirname, '../..', doc);
    await writeFile(path, text, 'utf8');
    process.stdout.write(`wrote ${path}\n`);
  }
  return 0;
}

process.exitCode = await main();
