import { describe } from 'vitest';
import { TOOL_SERVERS } from '../../compatibility/targets.js';
import { testEachAgainstTable } from './table-interop.js';

// The suite against third-party servers (the official SDK, its reference servers, two bridges,
// a framework and tmcp, an implementation of its own), with the default --call-tools (no tool that is not annotated read-only
// is called), and the comparison of what it measures with docs/tool-server-compatibility.md.

describe('interop with third-party tool servers (docs/tool-server-compatibility.md)', () => {
  testEachAgainstTable('tool-server', TOOL_SERVERS, 180_000);
});
