/**
 * The model wirecheck names when the user names none: in the messages-service suite's requests
 * and the reference agent's. Against the mock any name works; against the real API it must be
 * a model that is served. claude-sonnet-4-5, the default until 2026-11-27, reaches its end of
 * life on 2026-11-30 (the deprecation table of @anthropic-ai/sdk 1.12.0); a test keeps this
 * name off that table.
 */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
