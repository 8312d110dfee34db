import { z } from 'zod';

/** `{name, version}` of either side (spec "Tool-server objects", "Versioning"). */
export const Implementation = z.looseObject({
  name: z.string(),
  version: z.string(),
});
export type Implementation = z.infer<typeof Implementation>;

export const InitializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()),
  clientInfo: Implementation,
});
export type InitializeParams = z.infer<typeof InitializeParams>;

/** A server offering tools has a `tools` object among its capabilities. */
export const InitializeResult = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({
    tools: z.record(z.string(), z.unknown()).optional(),
  }),
  serverInfo: Implementation,
  instructions: z.string().optional(),
});
export type InitializeResult = z.infer<typeof InitializeResult>;
