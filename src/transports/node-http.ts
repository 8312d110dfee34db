import type * as NodeHttp from 'node:http';

/**
 * `node:http` without an ESM import. Importing it as a module builds its ESM namespace, which
 * reads every export, the lazy `WebSocket`, `CloseEvent` and `MessageEvent` too: that loads
 * Node's bundled undici, about 25 ms of CPU at every process start (measured on Node 24: 10
 * starts importing it 0.46 s, with getBuiltinModule 0.25 s, an empty script 0.22 s). A
 * conformance run starts the reference targets hundreds of times.
 */
export const nodeHttp: typeof NodeHttp = process.getBuiltinModule('node:http');
