// A messages-client target built on LangChain (`ChatAnthropic` of @langchain/anthropic), a
// popular client of the messages API whose streams it reads through the official SDK's raw
// events and assembles itself. The adapter maps the request on stdin to LangChain's messages
// and prints the final message in the buffered response shape, from the AIMessage LangChain
// returns (its content blocks, its parsed tool calls and its response metadata):
//   wirecheck test messages-client --client "node examples/langchain-anthropic-client.mjs"
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage } from '@langchain/core/messages';

function fail(kind, message, status) {
  process.stdout.write(`${JSON.stringify({ error: { kind, status, message } })}\n`);
  process.exitCode = 1;
}

/** Turns of the messages API as LangChain messages: their content blocks pass through as they are. */
function langchainMessages(turns) {
  return turns.map((turn) =>
    turn.role === 'assistant'
      ? new AIMessage({ content: turn.content })
      : new HumanMessage({ content: turn.content }),
  );
}

/**
 * The final message in the buffered response shape, from LangChain's AIMessage: a buffered
 * reply's fields are in its response metadata; a stream's in its additional kwargs (model and
 * id from message_start, stop reason and sequence from message_delta), its usage only in
 * LangChain's own usage metadata.
 */
function finalMessage(message) {
  const meta = { ...message.additional_kwargs, ...message.response_metadata };
  // LangChain gives a reply of one text block, or of none, as a string.
  const blocks =
    typeof message.content !== 'string'
      ? message.content
      : message.content === ''
        ? []
        : [{ type: 'text', text: message.content }];
  const calls = new Map((message.tool_calls ?? []).map((call) => [call.id, call]));
  return {
    id: meta.id ?? message.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: blocks.flatMap((block) => {
      if (block.type === 'text') return [{ type: 'text', text: block.text }];
      // A streamed tool_use block holds its input as the JSON text received; the parsed input is the tool call's.
      if (block.type === 'tool_use')
        return [
          {
            type: 'tool_use',
            id: block.id,
            name: block.name,
            input: calls.get(block.id)?.args ?? block.input,
          },
        ];
      return [];
    }),
    stop_reason: meta.stop_reason ?? null,
    stop_sequence: meta.stop_sequence ?? null,
    usage: {
      input_tokens: meta.usage?.input_tokens ?? message.usage_metadata?.input_tokens,
      output_tokens: meta.usage?.output_tokens ?? message.usage_metadata?.output_tokens,
    },
  };
}

function report(error) {
  const status = typeof error?.status === 'number' ? error.status : undefined;
  if (status === 429) fail('rate_limit', error.message, status);
  else if (status !== undefined) fail('status', error.message, status);
  // The official SDK's error classes, thrown through LangChain (their name property is "Error").
  else if (['APIConnectionError', 'APIConnectionTimeoutError'].includes(error?.constructor?.name))
    fail('connection', error.message);
  else fail('stream', String(error?.message ?? error));
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const apiKey = process.env.ANTHROPIC_API_KEY;
if (!apiKey) {
  fail('missing_api_key', 'ANTHROPIC_API_KEY is not set');
} else {
  const model = new ChatAnthropic({
    model: body.model,
    apiKey,
    anthropicApiUrl: process.env.ANTHROPIC_BASE_URL,
    maxTokens: body.max_tokens,
    streaming: body.stream === true,
    // The official SDK's default; LangChain's own is 6 tries with growing waits.
    maxRetries: 2,
  });
  try {
    const runnable = body.tools ? model.bindTools(body.tools) : model;
    const message = await runnable.invoke(langchainMessages(body.messages));
    if ((message.invalid_tool_calls ?? []).length > 0) throw new Error('invalid tool input');
    process.stdout.write(`${JSON.stringify(finalMessage(message))}\n`);
  } catch (error) {
    report(error);
  }
}
