/** The largest POST body an SSE + POST tool server of wirecheck accepts, as the MCP SDK's SSE transport (4 MB). */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
