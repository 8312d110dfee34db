import { readdir } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { TOOL_SERVERS } from '../../compatibility/targets.js';
import { runAgainst } from './helpers.js';

// The suite against third-party servers (the official SDK, its reference servers, two bridges
// and a framework), with the default --call-tools (no tool that is not annotated read-only
// is called), and the comparison of what it measures with docs/tool-server-compatibility.md.

describe('interop with third-party tool servers (docs/tool-server-compatibility.md)', () => {
  for (const name of Object.keys(TOOL_SERVERS)) {
    test(`${name}: every failure and warning is the one the compatibility table lists`, async () => {
      const started = await TOOL_SERVERS[name]!();
      try {
        const result = await runAgainst(started.target);
        const table = await readCompatibilityTable('tool-server');
        expect(tableDifferences('tool-server', table, name, result)).toEqual([]);
        // No check calls a writing tool: the folder the server may write in stays empty.
        if (started.dir !== undefined) expect(await readdir(started.dir)).toEqual([]);
      } finally {
        await started.close();
      }
    }, 180_000);
  }
});
