import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../harness/run-suite.js';
import type { SuiteEntry } from '../registry.js';
import { toolServerSuite } from './suite.js';
import { TOOL_SERVER_TARGET_OPTIONS, type ToolServerTarget, toolServerTargetFromOptions } from './target.js';

/**
 * The reference tool server as a stdio target command: `node bin/wirecheck.js serve tools
 * --transport stdio` (or `--transport sse --port N`, for `--start`; this file sits two folders
 * below src/ or dist/).
 */
export function referenceToolServerCommand(transport: 'stdio' | 'sse' = 'stdio', port = 0): string {
  const bin = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
  const args = transport === 'stdio' ? '--transport stdio' : `--transport sse --port ${port}`;
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} serve tools ${args}`;
}

/** The suite as the CLI registers it. */
export const toolServerSuiteEntry: SuiteEntry = {
  suite: toolServerSuite,
  targetOptions: TOOL_SERVER_TARGET_OPTIONS,
  targetFromOptions: toolServerTargetFromOptions,
  async reference() {
    const target: ToolServerTarget = { kind: 'stdio', command: referenceToolServerCommand('stdio') };
    return { target, close: async () => {} };
  },
};
