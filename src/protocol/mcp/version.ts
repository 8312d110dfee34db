/** The tool-server protocol version a client sends in `initialize` (spec "Versioning"). */
export const PROTOCOL_VERSION = '2024-11-05';

/**
 * Method names. The spec names only `initialize` and leaves the others "not shown"; these
 * are MCP 2024-11-05's.
 */
export const METHODS = {
  initialize: 'initialize',
  initialized: 'notifications/initialized',
  toolsList: 'tools/list',
  toolsCall: 'tools/call',
  ping: 'ping',
  cancelled: 'notifications/cancelled',
  progress: 'notifications/progress',
  toolsListChanged: 'notifications/tools/list_changed',
} as const;
