// The documented vitest example (docs/ci.md) is itself a test: vitest's include covers only
// test/, so importing it here registers its tests in this file. It imports 'wirecheck' and
// 'wirecheck/vitest' as a user would (package self-reference into dist/, built by global-setup).
import '../../examples/vitest/runner.test.js';
