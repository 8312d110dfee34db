import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * What the docs teach as the API is what the package exports: every name a snippet of
 * README.md or docs/*.md imports from 'wirecheck' or 'wirecheck/vitest' must be there. The
 * names come from the docs themselves, so a snippet naming a missing export fails this test.
 * The entries are imported by package name (self-reference through package.json's `exports`,
 * into the dist/ global-setup builds), as a user's code imports them.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);

interface Imported {
  readonly name: string;
  readonly typeOnly: boolean;
  readonly where: string;
}

/** The names of every `import { ... } from '<specifier>'` in the markdown files, with where each is. */
function importsOf(specifier: string): Imported[] {
  const found: Imported[] = [];
  const statement = /^import\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/gm;
  for (const file of DOCS) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(statement)) {
      if (m[3] !== specifier) continue;
      const line = text.slice(0, m.index).split('\n').length;
      for (const part of (m[2] ?? '').split(',')) {
        const entry = part.trim();
        if (entry === '') continue;
        const typeOnly = m[1] !== undefined || entry.startsWith('type ');
        const name = entry
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]
          ?.trim();
        if (name) found.push({ name, typeOnly, where: `${file}:${line}` });
      }
    }
  }
  return found;
}

/** Where the package's `exports` sends an entry (its types and its code), as Node resolves it. */
function entryOf(subpath: '.' | './vitest'): { types: string; code: string } {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  };
  const entry = manifest.exports[subpath];
  if (entry === undefined) throw new Error(`package.json exports has no ${subpath} entry`);
  return { types: join(ROOT, entry.types), code: join(ROOT, entry.default) };
}

/**
 * The names a declaration file exports, following its `export * from` and `export { } from`
 * into the files they name (type-only names are invisible at run time, so are read here).
 */
function declaredExports(file: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const declared =
    /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface|type|const|let|function|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declared)) names.add(m[1] ?? '');
  for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of (m[1] ?? '').split(',')) {
      const alias = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (alias) names.add(alias);
    }
  }
  for (const m of text.matchAll(/^export\s+\*\s+from\s+['"]([^'"]+)['"]/gm)) {
    const target = join(dirname(file), (m[1] ?? '').replace(/\.js$/, '.d.ts'));
    for (const name of declaredExports(target, seen)) names.add(name);
  }
  return names;
}

async function missingFrom(specifier: 'wirecheck' | 'wirecheck/vitest'): Promise<string[]> {
  const module = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
  const types = declaredExports(entryOf(specifier === 'wirecheck' ? '.' : './vitest').types);
  return importsOf(specifier)
    .filter(({ name, typeOnly }) => (typeOnly ? !types.has(name) : !(name in module)))
    .map(
      ({ name, typeOnly, where }) =>
        `${where} imports ${typeOnly ? 'type ' : ''}${name} from '${specifier}', which does not export it`,
    );
}

describe('the names the docs import', () => {
  test('are read from the docs (the reader is not vacuous)', () => {
    const names = importsOf('wirecheck').map((i) => i.name);
    // One of each kind of snippet: a single line, a list over several lines.
    expect(names).toContain('runSuite');
    expect(names).toContain('duplicateIds');
    expect(names).toContain('REFERENCE_TOOLS');
    expect(importsOf('wirecheck/vitest').map((i) => i.name)).toContain('describeSuite');
    expect(declaredExports(entryOf('.').types)).toContain('SuiteRunOptions');
  });

  test("are all exported by 'wirecheck'", async () => {
    expect(await missingFrom('wirecheck')).toEqual([]);
  }, 90_000);

  test("are all exported by 'wirecheck/vitest'", async () => {
    expect(await missingFrom('wirecheck/vitest')).toEqual([]);
  }, 90_000);

  test("come from the package, not from its sources (a user's project has no src/)", () => {
    const fromSources = DOCS.flatMap((file) =>
      [
        ...readFileSync(join(ROOT, file), 'utf8').matchAll(
          /^import\b[^;]*?from\s*['"](\.{1,2}\/[^'"]*)['"]/gm,
        ),
      ].map((m) => `${file}: imports from '${m[1]}'`),
    );
    expect(fromSources).toEqual([]);
  });
});

describe('the API the docs describe in prose', () => {
  // Named in docs/tool-client.md and README.md as what the library offers, outside any import line.
  test('transports, their errors and the bash runner are exported', async () => {
    const api = (await import('wirecheck')) as Record<string, unknown>;
    const names = [
      'StreamableHttpClientTransport',
      'TransportError',
      'SessionExpiredError',
      'isSessionExpired',
      'RetryBeyondBudgetError',
      'createInMemoryPair',
      'createBashRunner',
      'RunAbortedError',
      'RunnerStartError',
      'HOW_TO_ISOLATE',
      'recordingScenario',
      'ReplayMatch',
      'NO_MATCH',
    ];
    expect(names.filter((name) => typeof api[name] === 'undefined')).toEqual([]);
  }, 90_000);
});
