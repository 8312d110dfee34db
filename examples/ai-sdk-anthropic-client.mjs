// A messages-client target built on the Vercel AI SDK (`ai` with `@ai-sdk/anthropic`), a
// popular client of the messages API that is not the official SDK. The adapter maps the
// request on stdin to the AI SDK's call and prints the final message in the buffered
// response shape, from what the AI SDK returns (the raw stop reason, usage and stop
// sequence come from its provider metadata):
//   wirecheck test messages-client --client "node examples/ai-sdk-anthropic-client.mjs"
import { anthropic as anthropicTools, createAnthropic } from '@ai-sdk/anthropic';
import { APICallError, generateText, jsonSchema, RetryError, streamText } from 'ai';

function fail(kind, message, status) {
  process.stdout.write(`${JSON.stringify({ error: { kind, status, message } })}\n`);
  process.exitCode = 1;
}

function blocksOf(content) {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** Turns of the messages API as the AI SDK's messages; tool results become `tool` messages. */
function modelMessages(turns) {
  const toolNames = new Map();
  const out = [];
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const content = blocksOf(turn.content).map((b) => {
        if (b.type !== 'tool_use') return { type: 'text', text: b.text };
        toolNames.set(b.id, b.name);
        return { type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input };
      });
      out.push({ role: 'assistant', content });
      continue;
    }
    const blocks = blocksOf(turn.content);
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length > 0) {
      out.push({
        role: 'tool',
        content: results.map((r) => ({
          type: 'tool-result',
          toolCallId: r.tool_use_id,
          toolName: toolNames.get(r.tool_use_id) ?? 'bash',
          output: { type: r.is_error ? 'error-text' : 'text', value: textOf(r.content ?? '') },
        })),
      });
    }
    const texts = blocks.filter((b) => b.type === 'text');
    if (texts.length > 0)
      out.push({ role: 'user', content: texts.map((b) => ({ type: 'text', text: b.text })) });
  }
  return out;
}

function toolsOf(definitions = []) {
  const tools = {};
  for (const t of definitions) {
    if (t.type === 'bash_20250124') tools[t.name] = anthropicTools.tools.bash_20250124({});
    else if (t.type === 'bash_20241022') tools[t.name] = anthropicTools.tools.bash_20241022({});
    else tools[t.name] = { description: t.description, inputSchema: jsonSchema(t.input_schema) };
  }
  return tools;
}

/** The final message in the buffered response shape, from the AI SDK's result. */
function finalMessage(content, response, rawFinishReason, providerMetadata, usage) {
  const raw = providerMetadata?.anthropic ?? {};
  return {
    id: response.id,
    type: 'message',
    role: 'assistant',
    model: response.modelId,
    content: content.flatMap((part) => {
      if (part.type === 'text') return [{ type: 'text', text: part.text }];
      // A tool the service ran itself (server_tool_use) is not a tool_use block of the spec.
      if (part.type === 'tool-call' && !part.providerExecuted)
        return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input }];
      return [];
    }),
    stop_reason: rawFinishReason ?? null,
    stop_sequence: raw.stopSequence ?? null,
    usage: {
      input_tokens: raw.usage?.input_tokens ?? usage.inputTokens,
      output_tokens: raw.usage?.output_tokens ?? usage.outputTokens,
    },
  };
}

function report(error) {
  const cause = error instanceof RetryError ? error.lastError : error;
  const status = APICallError.isInstance(cause) ? cause.statusCode : undefined;
  if (status !== undefined && status >= 400) {
    fail(status === 429 ? 'rate_limit' : 'status', cause.message, status);
  } else if (APICallError.isInstance(cause) && status === undefined) {
    fail('connection', cause.message);
  } else {
    // A 200 whose body could not be read or parsed, an error event, an invalid tool input.
    fail('stream', String(cause?.message ?? cause));
  }
}

/** The AI SDK flags a tool call whose input is not valid JSON instead of running it: a failure here. */
function invalidToolCall(part) {
  return part.type === 'tool-call' && part.invalid === true;
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const apiKey = process.env.ANTHROPIC_API_KEY;
if (!apiKey) {
  fail('missing_api_key', 'ANTHROPIC_API_KEY is not set');
} else {
  const provider = createAnthropic({ apiKey, baseURL: `${process.env.ANTHROPIC_BASE_URL}/v1` });
  const call = {
    model: provider(body.model),
    maxOutputTokens: body.max_tokens,
    messages: modelMessages(body.messages),
    ...(body.tools ? { tools: toolsOf(body.tools) } : {}),
  };
  try {
    if (body.stream) {
      let failure;
      const result = streamText({ ...call, onError: ({ error }) => (failure ??= error) });
      const content = [];
      for await (const part of result.fullStream) {
        // A text block opens with text-start even when no delta follows (an empty text block).
        if (part.type === 'text-start') content.push({ type: 'text', id: part.id, text: '' });
        else if (part.type === 'text-delta') {
          const block = content.findLast((b) => b.type === 'text' && b.id === part.id);
          if (block) block.text += part.text;
          else content.push({ type: 'text', id: part.id, text: part.text });
        } else if (invalidToolCall(part)) failure ??= part.error ?? new Error('invalid tool input');
        else if (part.type === 'tool-call') content.push(part);
        else if (part.type === 'error') failure ??= part.error;
      }
      if (failure) throw failure;
      const message = finalMessage(
        content,
        await result.response,
        await result.rawFinishReason,
        await result.providerMetadata,
        await result.usage,
      );
      process.stdout.write(`${JSON.stringify(message)}\n`);
    } else {
      const result = await generateText(call);
      const invalid = result.content.find(invalidToolCall);
      if (invalid) throw invalid.error ?? new Error('invalid tool input');
      const message = finalMessage(
        result.content,
        result.response,
        result.rawFinishReason,
        result.providerMetadata,
        result.usage,
      );
      process.stdout.write(`${JSON.stringify(message)}\n`);
    }
  } catch (error) {
    report(error);
  }
}
