import { describe, expect, test } from 'vitest';
import { catalogueOf, formatCatalogue } from '../../src/reporters/catalogue.js';
import { SUITES } from '../../src/suites/registry.js';

describe('wirecheck list: the revisions a check holds in (--protocol)', () => {
  const rows = catalogueOf(SUITES);

  test('--json rows carry revisions for the checks of some revisions only, and none for the others', () => {
    expect(rows.find((r) => r.id === 'tool-server.jsonrpc.batch-answered')?.revisions).toEqual([
      '2025-03-26',
    ]);
    expect(rows.find((r) => r.id === 'tool-server.tools.structured-content')?.revisions).toEqual([
      '2025-06-18',
      '2025-11-25',
    ]);
    const everyRevision = rows.find((r) => r.id === 'tool-server.ping.answered');
    expect(everyRevision).toBeDefined();
    expect(everyRevision).not.toHaveProperty('revisions');
  });

  test('the text catalogue shows them below the description', () => {
    const text = formatCatalogue(
      rows.filter((r) => r.suite === 'tool-server'),
      100,
    );
    const at = text.indexOf('tool-server.tools.name-format');
    expect(at).toBeGreaterThan(0);
    expect(text.slice(at, at + 600)).toContain('revisions: 2025-11-25');
    const ping = text.indexOf('tool-server.ping.answered');
    expect(text.slice(ping, text.indexOf('\n  tool-server.', ping + 10))).not.toContain('revisions:');
  });
});
