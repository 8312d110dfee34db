import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { formatRevisionsMarkdown, REVISIONS_DOC_PATH } from '../../src/docs/revisions.js';
import { REVISION_CHANGES } from '../../src/protocol/mcp/index.js';
import { SUITES } from '../../src/suites/registry.js';

describe('docs/mcp-revisions.md', () => {
  test('is generated from the revision changes and the registry: stale means npm run docs:checks was not run', async () => {
    const onDisk = await readFile(new URL(`../../${REVISIONS_DOC_PATH}`, import.meta.url), 'utf8');
    if (onDisk !== formatRevisionsMarkdown(SUITES))
      expect.fail('docs/mcp-revisions.md is stale: run npm run docs:checks');
  });

  test('quotes every change with its source and lists its checks with their level', () => {
    const doc = formatRevisionsMarkdown(SUITES);
    for (const c of REVISION_CHANGES) {
      expect(doc).toContain(c.source.url);
      for (const id of c.checks)
        expect(doc).toMatch(new RegExp(`- \`${id.replace(/\./g, '\\.')}\`: (must|should)`));
    }
    expect(doc).not.toContain('not registered');
    expect(doc).toContain('| `tool-server.jsonrpc.batch-answered` | must |  | yes |  |  |');
    expect(doc).toContain('| `tool-server.tools.structured-content` | must |  |  | yes | yes |');
  });
});
