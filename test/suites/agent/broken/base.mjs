// A small agent written from the spec alone (plain fetch and spawnSync, no wirecheck code),
// with switchable flaws. Without flaws it is a second, independent conforming agent: the
// suite must pass it. It reads the breaker differently from the reference (it runs every
// command of a reply, then halts if three failed in a row at any point), and its default
// cap is 8. Each file next to this one turns on one flaw.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * @typedef {object} Flaws
 * @property {boolean} [noResendTools] send `tools` on the first request only
 * @property {boolean} [resultTurnEach] put each tool_result in a user turn of its own
 * @property {boolean} [mismatchedIds] answer with made-up tool_use ids
 * @property {boolean} [noCap] ignore the turn cap
 * @property {boolean} [capPlusOne] count turns after the first request (cap + 1 requests)
 * @property {boolean} [countMessages] not a flaw: count turns as the spec's Turn, every message of the
 *   conversation (the prompt, each reply, each results turn), halting once they reach the cap
 * @property {number} [breakerAt] failures in a row that trip the breaker (default 3; 0: never)
 * @property {boolean} [exitZeroOnBreaker] exit 0 when the breaker trips
 * @property {boolean} [noOperatorLine] say nothing when the breaker trips
 * @property {boolean} [traceConversation] not a flaw: log each reply as `[assistant] ...` and each
 *   follow-up as `sending user turn with N tool_result blocks` on stderr
 * @property {boolean} [dropAssistantTurn] leave the assistant turn out of the follow-up
 * @property {boolean} [toolUsesOnlyTurn] append only the reply's tool_use blocks as the assistant turn (its
 *   text block dropped), reading the spec's loop as naming only them
 * @property {boolean} [reverseResults] answer a reply's tool calls in reverse order (last call first)
 * @property {boolean} [noResetOnSuccess] count every failing command towards the breaker, never starting the
 *   count again after a success
 * @property {boolean} [newTurnsOnly] send only the turns the service has not seen (the results), as if
 *   it held the conversation and its own reply (the official SDK's tool runner does this by default)
 * @property {boolean} [anyTool] run every tool_use as a bash command, whatever tool it names
 * @property {string} [bashType] declare the bash tool with this type (default bash_20250124)
 * @property {boolean} [customBash] declare bash as a custom tool (a description and an input schema), as the
 *   official SDK's betaBashTool does, not as the built-in shell tool
 * @property {boolean} [noApiKey] send no key (the mock refuses every request with 401)
 * @property {boolean} [oversizedFirstRequest] send a 33 MiB system prompt with the first request (over the
 *   real API's 32 MiB request size limit, which the spec does not show; the mock refuses it with 413)
 * @property {boolean} [shrinkAfterTooLarge] as oversizedFirstRequest, then, once that request is refused, send
 *   it again without the system prompt and go on (an agent that shrinks its request and retries)
 * @property {boolean} [zeroMaxTokens] send max_tokens 0 (the spec only says integer; the real API refuses it)
 * @property {boolean} [noMkdir] never create WIRECHECK_WORKDIR (every command there then fails)
 * @property {boolean} [runInCwd] run commands in the directory it was started in, not WIRECHECK_WORKDIR
 * @property {boolean} [throwOnFailure] throw (exit 1 with a stack trace) at the first command that fails
 * @property {boolean} [exitZeroOnApiError] exit 0 when a request gets an error status
 * @property {boolean} [keyOnce] send the key with the first request only
 * @property {boolean} [neverStops] answer a reply without tool_use with "Go on." instead of ending, and
 *   retry a failed request at once, without end
 * @property {string} [path] post to this path of the base URL (default /v1/messages)
 * @property {boolean} [moreTools] not a flaw: offer tools the real API defines beside bash (web search,
 *   text editor) and a custom tool
 * @property {boolean} [equivalentForms] not a flaw: write every other request in equivalent forms
 *   (a text-only user turn as a string, is_error false left out, tool_result content as text blocks)
 * @property {boolean} [otherOperations] not a flaw: list the models at start and count the tokens of
 *   every request first (operations of the real API the spec does not show; their errors ignored)
 * @property {number} [defaultCap] not a flaw: the cap when WIRECHECK_MAX_TURNS is unset (default 8)
 * @property {string} [operatorLine] not a flaw: the words asking for intervention when the breaker trips
 * @property {boolean} [verboseAroundBreaker] not a flaw: 16 KiB of trace on stderr before the operator line and 16 after
 * @property {boolean} [oneShot] stop after the first reply, whatever it asks for, and exit 0
 * @property {boolean} [continueOnMaxTokens] answer a reply cut at max_tokens with "Please continue." instead of
 *   ending the loop
 * @property {boolean} [failOnUnlistedStop] exit 1 on a reply whose stop_reason the spec does not list
 * @property {boolean} [noRetry] give up at once on 429 and 529 (retried twice otherwise)
 * @property {boolean} [retryOverloadedOnly] retry 529 only, giving up at once on 429
 * @property {boolean} [retryOnce] not a flaw: retry 429 and 529 once, as an SDK client set to one retry
 * @property {'failures-first' | 'successes-first'} [countOrder] not a flaw: count a reply's failing commands
 *   for the breaker before (or after) its succeeding ones, as when a reply's commands run at once and
 *   finish in that order
 * @property {number} [turnDelayMs] not a flaw: wait this long before each request after the first, as an agent
 *   whose commands each start a container
 * @property {boolean} [noIsError] leave is_error out of every result (a failing command's too)
 * @property {boolean} [noOutput] answer each command with its outcome only, not its output
 * @property {boolean} [quoteCommandOnly] answer each command with the command itself and its exit status
 *   (`$ echo wc-x` and a note that no output was captured), not its output
 * @property {boolean} [banner] not a flaw alone: start every run with a stderr line that reads like a request
 *   (`[agent <pid>] running commands as user wirecheck in <workdir>; see --help for options`)
 * @property {boolean} [ignoreMaxTurns] ignore WIRECHECK_MAX_TURNS: the default cap always
 * @property {boolean} [promptFromArgv] take the task from the command line (none given, so a default task)
 *   instead of stdin, which it never reads: the prompt given on stdin is not sent
 * @property {boolean} [restartUnanswered] take a bash call with `restart: true` as a host action: restart the
 *   shell, and neither run it nor answer it (a reply holding only that call leaves nothing to answer: the loop ends)
 * @property {boolean} [environmentAfterPrompt] not a flaw: send its environment as a user turn of its own
 *   right after the prompt's (the real API combines consecutive user turns into one)
 * @property {boolean} [reminderAfterResults] not a flaw: append a reminder as a user turn of its own after
 *   each results turn, where it stays in the history
 * @property {boolean} [splitAssistantTurn] not a flaw: echo each reply as two assistant turns, its text
 *   blocks, then its other blocks (the real API combines consecutive assistant turns into one)
 * @property {boolean} [noVersion] send no version header (neither service-version nor anthropic-version)
 * @property {string} [version] the value of anthropic-version (default 2023-06-01)
 * @property {string | null} [contentType] the content-type of a request (default application/json; null:
 *   none written, so fetch sends its default for a string body, text/plain;charset=UTF-8)
 * @property {string} [breakerStackTrace] print a stack trace when the breaker trips, as its only line (it
 *   halts and exits 3 all the same)
 * @property {boolean} [sessionShell] not a flaw: a shell session kept across calls, as a runner with one
 *   persistent bash has: a command that exits that shell (a top-level `exit`) ends the session, and every
 *   later command is answered with an error until a call with `restart: true` starts a new one
 */

/** Whether the session shell of `sessionShell` has been exited (by a top-level `exit`). */
let shellEnded = false;
const ALIVE = '__wirecheck_shell_alive__';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function runBash(command, workdir, restart, flaws) {
  if (flaws.sessionShell && restart) shellEnded = false;
  if (flaws.sessionShell && shellEnded) {
    return { content: 'Error: the shell session has ended; restart the tool to go on', isError: true };
  }
  // A marker printed after the command: missing, the command exited the shell itself.
  const script = flaws.sessionShell
    ? `${command}\n__wc_status=$?; printf '%s' ${ALIVE}; exit $__wc_status`
    : command;
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: workdir,
    encoding: 'utf8',
    timeout: 20_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const code = run.status ?? -1;
  let text = run.stdout ?? '';
  if (flaws.sessionShell) {
    if (text.endsWith(ALIVE)) text = text.slice(0, -ALIVE.length);
    else shellEnded = true;
  }
  if (run.stderr) text = text ? `${text}\n--- STDERR ---\n${run.stderr}` : run.stderr;
  if (text.trim() === '') text = `exit code ${code}, no output`;
  return { content: text, isError: code !== 0 };
}

/** The same conversation in other, equivalent forms (the real API reads both alike). */
function equivalentForms(messages) {
  return messages.map((turn) => {
    if (!Array.isArray(turn.content)) return turn;
    if (turn.role === 'user' && turn.content.every((b) => b.type === 'text')) {
      return { role: 'user', content: turn.content.map((b) => b.text).join('') };
    }
    return {
      ...turn,
      content: turn.content.map((b) => {
        // A bash input rebuilt from a typed model: the restart default written out.
        if (b.type === 'tool_use' && b.name === 'bash' && b.input?.restart === undefined) {
          return { ...b, input: { ...b.input, restart: false } };
        }
        if (b.type !== 'tool_result') return b;
        const { is_error, content, ...rest } = b;
        return {
          ...rest,
          content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
          ...(is_error ? { is_error } : {}),
        };
      }),
    };
  });
}

/** A call of another operation of the real API, whose answer (an error from the mock) is ignored. */
async function callAside(method, path, body) {
  const base = process.env.WIRECHECK_BASE_URL || process.env.ANTHROPIC_BASE_URL;
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      'x-api-key': process.env.WIRECHECK_API_KEY || process.env.ANTHROPIC_API_KEY,
      'anthropic-version': '2023-06-01',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await response.arrayBuffer();
}

async function send(body, withKey, path = '/v1/messages', retries = 2, retried = [429, 529], flaws = {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await sendOnce(body, withKey, path, flaws);
    } catch (error) {
      // Rate limited (429) and overloaded (529) are retried, as the real API's SDKs do (they
      // retry other 5xx too; the mock's 500 past a script's end is left to end the run).
      if (attempt >= retries || !retried.includes(error.status)) throw error;
      await new Promise((resolve) => setTimeout(resolve, error.retryAfterMs ?? 500));
    }
  }
}

async function sendOnce(body, withKey, path, flaws) {
  const key = process.env.WIRECHECK_API_KEY || process.env.ANTHROPIC_API_KEY;
  const base = process.env.WIRECHECK_BASE_URL || process.env.ANTHROPIC_BASE_URL;
  const contentType = flaws.contentType === undefined ? 'application/json' : flaws.contentType;
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      ...(contentType === null ? {} : { 'content-type': contentType }),
      ...(withKey ? { 'x-api-key': key } : {}),
      ...(flaws.noVersion ? {} : { 'anthropic-version': flaws.version ?? '2023-06-01' }),
    },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) {
    const error = new Error(`HTTP ${response.status}: ${JSON.stringify(json)}`);
    error.status = response.status;
    const after = Number(response.headers.get('retry-after-ms'));
    if (Number.isFinite(after) && after > 0) error.retryAfterMs = Math.min(after, 2000);
    throw error;
  }
  return json;
}

/** Run the agent with `flaws`; sets the exit status as the target contract says. */
export async function main(flaws = {}) {
  const prompt = flaws.promptFromArgv
    ? (process.argv[2] ?? 'Look around the working directory and report what you find.')
    : (await readStdin()).trim();
  if (!process.env.WIRECHECK_API_KEY && !process.env.ANTHROPIC_API_KEY) {
    process.stderr.write('no API key\n');
    process.exitCode = 1;
    return;
  }
  const cap = flaws.noCap
    ? Number.POSITIVE_INFINITY
    : Number((!flaws.ignoreMaxTurns && process.env.WIRECHECK_MAX_TURNS) || flaws.defaultCap || 8);
  if (flaws.otherOperations) await callAside('GET', '/v1/models');
  const workdir = flaws.runInCwd
    ? process.cwd()
    : process.env.WIRECHECK_WORKDIR || mkdtempSync(join(tmpdir(), 'indep-agent-'));
  if (!flaws.noMkdir) mkdirSync(workdir, { recursive: true });
  if (flaws.banner) {
    process.stderr.write(
      `[agent ${process.pid}] running commands as user wirecheck in ${workdir}; see --help for options\n`,
    );
  }
  const threshold = flaws.breakerAt === 0 ? Number.POSITIVE_INFINITY : (flaws.breakerAt ?? 3);
  const tools = [
    flaws.customBash
      ? {
          name: 'bash',
          description: 'Run a shell command',
          input_schema: {
            type: 'object',
            properties: { command: { type: 'string' }, restart: { type: 'boolean' } },
            required: ['command'],
          },
        }
      : { type: flaws.bashType ?? 'bash_20250124', name: 'bash' },
    ...(flaws.moreTools
      ? [
          { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
          { type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' },
          {
            name: 'lookup',
            description: 'Look a word up',
            input_schema: { type: 'object', properties: { word: { type: 'string' } } },
          },
        ]
      : []),
  ];
  const messages = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  if (flaws.environmentAfterPrompt) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `<env>cwd: ${workdir}</env>` }] });
  }
  let failures = 0;
  let tripped = false;
  // The turns a service holding the conversation has seen: what was sent, and its own replies.
  let seenTurns = 0;
  let oversized = flaws.oversizedFirstRequest || flaws.shrinkAfterTooLarge;
  for (let requests = 1; ; requests++) {
    let reply;
    if (flaws.turnDelayMs && requests > 1) await new Promise((r) => setTimeout(r, flaws.turnDelayMs));
    const turns = flaws.newTurnsOnly ? messages.slice(seenTurns) : messages;
    const body = {
      model: 'independent-model',
      max_tokens: flaws.zeroMaxTokens ? 0 : 1024,
      messages: flaws.equivalentForms && requests % 2 === 0 ? equivalentForms(turns) : turns,
      ...(!flaws.noResendTools || requests === 1 ? { tools } : {}),
      ...(oversized && requests === 1 ? { system: 'x'.repeat(33 * 1024 * 1024) } : {}),
    };
    try {
      if (flaws.otherOperations) {
        await callAside('POST', '/v1/messages/count_tokens', {
          model: body.model,
          messages: body.messages,
          tools: body.tools,
        });
      }
      reply = await send(
        body,
        !flaws.noApiKey && (!flaws.keyOnce || requests === 1),
        flaws.path,
        flaws.noRetry ? 0 : flaws.retryOnce ? 1 : 2,
        flaws.retryOverloadedOnly ? [529] : [429, 529],
        flaws,
      );
    } catch (error) {
      // The mock may close the socket before reading the 33 MiB, so no status may have arrived.
      if (flaws.shrinkAfterTooLarge && oversized) {
        oversized = false;
        requests--;
        continue;
      }
      if (flaws.neverStops) continue;
      process.stderr.write(`request failed: ${error.message}\n`);
      process.exitCode = flaws.exitZeroOnApiError ? 0 : 1;
      return;
    }
    if (flaws.traceConversation)
      process.stderr.write(`[assistant] ${JSON.stringify(reply.content).slice(0, 200)}\n`);
    const uses = reply.content.filter(
      (b) =>
        b.type === 'tool_use' &&
        (flaws.anyTool || b.name === 'bash') &&
        !(flaws.restartUnanswered && b.input?.restart === true),
    );
    if (uses.length === 0 && flaws.neverStops) {
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: 'Go on.' });
      continue;
    }
    if (uses.length === 0 && flaws.continueOnMaxTokens && reply.stop_reason === 'max_tokens') {
      messages.push(
        { role: 'assistant', content: reply.content },
        { role: 'user', content: 'Please continue.' },
      );
      continue;
    }
    if (
      flaws.failOnUnlistedStop &&
      !['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'].includes(reply.stop_reason)
    ) {
      process.stderr.write(`unexpected stop_reason ${reply.stop_reason}\n`);
      process.exitCode = 1;
      return;
    }
    if (uses.length === 0 || flaws.oneShot) {
      process.stdout.write(`${reply.content.map((b) => b.text ?? '').join('')}\n`);
      return;
    }
    if (!flaws.dropAssistantTurn) {
      const content = flaws.toolUsesOnlyTurn
        ? reply.content.filter((b) => b.type === 'tool_use')
        : reply.content;
      const texts = content.filter((b) => b.type === 'text');
      if (flaws.splitAssistantTurn && texts.length > 0) {
        messages.push(
          { role: 'assistant', content: texts },
          { role: 'assistant', content: content.filter((b) => b.type !== 'text') },
        );
      } else {
        messages.push({ role: 'assistant', content });
      }
    }
    seenTurns = messages.length;
    const outcomes = uses.map((use) => {
      const outcome = runBash(String(use.input?.command ?? ''), workdir, use.input?.restart === true, flaws);
      if (outcome.isError && flaws.throwOnFailure) throw new Error(`command failed: ${outcome.content}`);
      return outcome;
    });
    const failuresFirst = flaws.countOrder === 'failures-first';
    const counted =
      flaws.countOrder === undefined
        ? outcomes
        : [...outcomes].sort((a, b) => (failuresFirst ? b.isError - a.isError : a.isError - b.isError));
    for (const { isError } of counted) {
      failures = isError ? failures + 1 : flaws.noResetOnSuccess ? failures : 0;
      if (failures >= threshold) tripped = true;
    }
    const results = uses.map((use, k) => {
      const { isError } = outcomes[k];
      const code = isError ? 1 : 0;
      const content = flaws.noOutput
        ? isError
          ? 'the command failed'
          : 'the command succeeded'
        : flaws.quoteCommandOnly
          ? `$ ${use.input?.command}\n(exit ${code}, no output captured)`
          : outcomes[k].content;
      const id = flaws.mismatchedIds ? `toolu_wrong_${requests}_${k}` : use.id;
      return {
        type: 'tool_result',
        tool_use_id: id,
        content,
        ...(flaws.noIsError ? {} : { is_error: isError }),
      };
    });
    // verboseAroundBreaker: traces before and after that line, so that it sits in the middle of
    // a stderr longer than the 16 KiB (the first and the last 8) a run keeps.
    const trace = (from) =>
      Array.from({ length: 500 }, (_, n) => `trace ${from + n}: step done, exit status 1\n`).join('');
    if (tripped) {
      if (flaws.verboseAroundBreaker) process.stderr.write(trace(0));
      if (flaws.breakerStackTrace !== undefined) process.stderr.write(`${flaws.breakerStackTrace}\n`);
      else if (!flaws.noOperatorLine)
        process.stderr.write(
          `${flaws.operatorLine ?? 'Circuit breaker open: 3 commands failed in a row. Human intervention needed.'}\n`,
        );
      if (flaws.verboseAroundBreaker) process.stderr.write(trace(500));
      process.exitCode = flaws.exitZeroOnBreaker ? 0 : 3;
      return;
    }
    if (flaws.traceConversation)
      process.stderr.write(`sending user turn with ${results.length} tool_result blocks\n`);
    if (flaws.reverseResults) results.reverse();
    if (flaws.resultTurnEach) for (const r of results) messages.push({ role: 'user', content: [r] });
    else messages.push({ role: 'user', content: results });
    if (flaws.reminderAfterResults) {
      messages.push({
        role: 'user',
        content: [{ type: 'text', text: '<reminder>Keep working in the workdir.</reminder>' }],
      });
    }
    const turnCount = flaws.countMessages ? messages.length : flaws.capPlusOne ? requests - 1 : requests;
    if (turnCount >= cap) return;
  }
}
