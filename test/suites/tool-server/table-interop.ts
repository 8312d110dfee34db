import { readdir } from 'node:fs/promises';
import { expect, test } from 'vitest';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import type { ThirdPartyTargets } from '../../compatibility/targets.js';
import { runAgainst } from './helpers.js';

/**
 * One test per third-party target: the suite's verdicts are the ones its column of `table`
 * lists, and no check wrote in the folder the server may write in (no writing tool is called).
 */
export function testEachAgainstTable(
  table: 'tool-server' | 'tool-server-http',
  targets: ThirdPartyTargets<ToolServerTarget>,
  timeoutMs: number,
): void {
  for (const name of Object.keys(targets)) {
    test(
      `${name}: every failure and warning is the one the compatibility table lists`,
      async () => {
        const started = await targets[name]!();
        try {
          const result = await runAgainst(started.target);
          const columns = await readCompatibilityTable(table);
          expect(tableDifferences(table, columns, name, result)).toEqual([]);
          if (started.dir !== undefined) expect(await readdir(started.dir)).toEqual([]);
        } finally {
          await started.close();
        }
      },
      timeoutMs,
    );
  }
}
