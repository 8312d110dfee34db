import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';

/** The peers the bench measures wirecheck against, by package name (the npm alias of the 0.x SDK too). */
export const PEER_PACKAGES = [
  '@copilotkit/aimock',
  '@anthropic-ai/sdk',
  'anthropic-sdk-0',
  '@modelcontextprotocol/sdk',
  'fastify',
] as const;

const require = createRequire(import.meta.url);
const ENTRY: Readonly<Record<string, string>> = {
  '@modelcontextprotocol/sdk': '@modelcontextprotocol/sdk/server/mcp.js',
};

/** The installed version of a package, found by walking up from its entry point; '?' when not found. */
export function installedVersion(name: string): string {
  let dir: string;
  try {
    // Some packages export no main entry: any exported module leads to the package too.
    dir = dirname(require.resolve(ENTRY[name] ?? name));
  } catch {
    return '?';
  }
  for (let depth = 0; depth < 8; depth++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      // The alias installs the real package under another directory name.
      if (pkg.version !== undefined && (pkg.name === name || name === 'anthropic-sdk-0')) return pkg.version;
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return '?';
}

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1];
    if (pretty) return pretty;
  } catch {
    // Not Linux, or no os-release.
  }
  return process.platform;
}

/** One line each: what the numbers of this run were measured on. */
export function describeMachine(): string[] {
  const list = cpus();
  const model = list[0]?.model.trim() ?? 'unknown CPU';
  const gib = (totalmem() / 1024 ** 3).toFixed(0);
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const peers = PEER_PACKAGES.map(
    (p) => `${p === 'anthropic-sdk-0' ? '@anthropic-ai/sdk (0.x alias)' : p} ${installedVersion(p)}`,
  );
  return [
    `machine: ${list.length} CPUs (${model}), ${gib} GiB, ${osName()}, Linux ${release()}, load average ${load}`,
    `software: node ${process.version}, ${peers.join(', ')}`,
  ];
}
