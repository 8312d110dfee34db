import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { MessageRequest } from '../../protocol/messages/index.js';
import { lastUserTurn, textOf, toolNamesOf, toolResultsOf } from './conversation.js';
import { ReplyJson, replyOfJson, type Scenario } from './reply.js';

/** The fixtures shipped with wirecheck (`fixtures/messages/`). */
export const BUNDLED_FIXTURES_DIR = join(PACKAGE_ROOT, 'fixtures', 'messages');

/** When a fixture applies; every rule given must hold (no rule: matches every request). */
export const FixtureMatch = z.strictObject({
  /** Count of assistant turns in the request's messages. */
  turnIndex: z.number().int().nonnegative().optional(),
  /** Substring of the last user turn's text. */
  lastUserTextIncludes: z.string().optional(),
  /** Regular expression (JavaScript syntax) searched in the last user turn's text. */
  lastUserTextRegex: z.string().optional(),
  /** Flags of lastUserTextRegex, e.g. "i". */
  regexFlags: z.string().optional(),
  /** Whether the last user turn carries tool_result blocks. */
  hasToolResult: z.boolean().optional(),
  /** A tool of this name is offered in the request's `tools`. */
  toolName: z.string().optional(),
});
export type FixtureMatch = z.infer<typeof FixtureMatch>;

export const Fixture = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  match: FixtureMatch.optional(),
  reply: ReplyJson,
});
export type Fixture = z.infer<typeof Fixture>;

/** A fixture file holding several fixtures; a file may also hold a single fixture object. */
export const FixtureList = z.strictObject({ fixtures: z.array(Fixture) });

export class FixtureError extends Error {
  override readonly name = 'FixtureError';
  constructor(
    readonly file: string,
    /** What is wrong, in wirecheck's words (never the file's content). */
    readonly problem: string,
    /** The parser's or the system's own words, which may quote the file: shown locally, never over HTTP. */
    readonly detail?: string,
  ) {
    super(`fixture ${file}: ${problem}${detail === undefined ? '' : `: ${detail}`}`);
  }
}

export interface LoadedFixture {
  /** `<file>#<position>` plus the fixture's name. */
  label: string;
  fixture: Fixture;
  regex: RegExp | undefined;
}

/** The facts of a request that fixtures match on. */
export interface RequestFacts {
  turnIndex: number;
  lastUserText: string;
  hasToolResult: boolean;
  tools: string[];
}

export function factsOf(request: MessageRequest, turnIndex: number): RequestFacts {
  const turn = lastUserTurn(request);
  return {
    turnIndex,
    lastUserText: textOf(turn),
    hasToolResult: toolResultsOf(turn).length > 0,
    tools: toolNamesOf(request),
  };
}

/** Load every `*.json` of `dir`, in file-name order. Throws FixtureError naming the file and the problem. */
export function loadFixtures(dir: string): LoadedFixture[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch (e) {
    throw new FixtureError(dir, 'cannot read the directory', (e as Error).message);
  }
  const loaded: LoadedFixture[] = [];
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (e) {
      throw new FixtureError(file, 'not valid JSON', (e as Error).message);
    }
    const isList = json !== null && typeof json === 'object' && 'fixtures' in json;
    const parsed = isList ? FixtureList.safeParse(json) : Fixture.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new FixtureError(
        file,
        `invalid at ${issue?.path.join('.') || '(root)'}`,
        issue?.message ?? 'invalid',
      );
    }
    const fixtures = 'fixtures' in parsed.data ? parsed.data.fixtures : [parsed.data];
    fixtures.forEach((fixture, k) => {
      const label = `${file}#${k}${fixture.name ? ` (${fixture.name})` : ''}`;
      loaded.push({ label, fixture, regex: compile(label, fixture.match) });
    });
  }
  return loaded;
}

function compile(label: string, match: FixtureMatch | undefined): RegExp | undefined {
  if (match?.lastUserTextRegex === undefined) return undefined;
  try {
    return new RegExp(match.lastUserTextRegex, match.regexFlags);
  } catch (e) {
    throw new FixtureError(
      label,
      'lastUserTextRegex is not a valid regular expression',
      (e as Error).message,
    );
  }
}

/** Why the fixture does not apply to the request, or undefined when it does. */
export function mismatch(loaded: LoadedFixture, facts: RequestFacts): string | undefined {
  const m = loaded.fixture.match ?? {};
  if (m.turnIndex !== undefined && m.turnIndex !== facts.turnIndex) {
    return `turnIndex ${m.turnIndex} wanted, ${facts.turnIndex} found`;
  }
  if (m.hasToolResult !== undefined && m.hasToolResult !== facts.hasToolResult) {
    return `hasToolResult ${m.hasToolResult} wanted`;
  }
  if (m.toolName !== undefined && !facts.tools.includes(m.toolName)) {
    return `tool ${JSON.stringify(m.toolName)} not offered`;
  }
  if (m.lastUserTextIncludes !== undefined && !facts.lastUserText.includes(m.lastUserTextIncludes)) {
    return `last user text lacks ${JSON.stringify(m.lastUserTextIncludes)}`;
  }
  if (loaded.regex && !loaded.regex.test(facts.lastUserText)) {
    return `last user text does not match /${loaded.regex.source}/${loaded.regex.flags}`;
  }
  return undefined;
}

/**
 * Replies from the fixtures in `dir` (default: the bundled ones): the first fixture, in
 * file-name order, whose match rules all hold. No match: a 500 api_error whose message
 * lists the request's facts and why each fixture did not apply.
 */
export function fixtureScenario(dir: string = BUNDLED_FIXTURES_DIR): Scenario {
  const fixtures = loadFixtures(dir);
  return (request, { turnIndex, requestIndex }) => {
    const facts = factsOf(request, turnIndex);
    const tried: string[] = [];
    for (const loaded of fixtures) {
      const why = mismatch(loaded, facts);
      if (why === undefined) return replyOfJson(loaded.fixture.reply, request, requestIndex);
      tried.push(`${loaded.label}: ${why}`);
    }
    const text =
      facts.lastUserText.length > 80 ? `${facts.lastUserText.slice(0, 80)}...` : facts.lastUserText;
    return {
      kind: 'error',
      status: 500,
      errorType: 'api_error',
      message:
        `no fixture matched the request (turnIndex ${facts.turnIndex}, last user text ${JSON.stringify(text)}, ` +
        `hasToolResult ${facts.hasToolResult}, tools [${facts.tools.join(', ')}]); tried ${fixtures.length}: ` +
        (tried.join('; ') || 'none'),
    };
  };
}
