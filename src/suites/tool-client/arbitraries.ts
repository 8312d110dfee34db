import fc from 'fast-check';
import type { CallToolResult, Tool } from '../../protocol/mcp/index.js';
import { arbJsonValue, type JsonObject } from '../arbitraries/json.js';
import { arbTextUnit } from '../arbitraries/text.js';

/** Tool names as servers use them: letters, digits, `_`, `-` and `.`, 1-40 characters. */
export const arbToolName: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,39}$/);

/** Call arguments: any JSON object (Unicode keys and values, nesting, numbers that survive JSON). */
export const arbArguments: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.string({ unit: arbTextUnit, maxLength: 8 }).filter((k) => k !== '__proto__'),
  arbJsonValue({ maxDepth: 2, maxKeys: 4 }),
  { maxKeys: 5, noNullPrototype: true },
);

/** A call result: text items with any Unicode, sometimes isError, sometimes extra fields a client must pass on. */
export const arbCallResult: fc.Arbitrary<CallToolResult> = fc
  .record(
    {
      content: fc.array(
        fc.record({ type: fc.constant('text'), text: fc.string({ unit: arbTextUnit, maxLength: 40 }) }),
        { minLength: 0, maxLength: 3 },
      ),
      isError: fc.boolean(),
      _meta: fc.record({ wirecheck: fc.integer({ min: 0, max: 1000 }) }),
    },
    { requiredKeys: ['content'] },
  )
  .map((r) => r as CallToolResult);

/** One round trip: the tool, the arguments on stdin (or none), the result the mock returns. */
export interface RoundTrip {
  readonly tool: Tool;
  /** Absent, never `undefined`: a case is saved as JSON, which has no undefined. */
  readonly arguments?: JsonObject;
  readonly result: CallToolResult;
}

export const arbRoundTrip: fc.Arbitrary<RoundTrip> = fc.record(
  {
    tool: arbToolName.map(
      (name): Tool => ({
        name,
        description: `wirecheck tool ${name}`,
        inputSchema: { type: 'object', properties: {} },
      }),
    ),
    // Left out (not set to undefined) when the call has no arguments.
    arguments: arbArguments,
    result: arbCallResult,
  },
  { requiredKeys: ['tool', 'result'] },
);
