// A messages-client target built on the official @anthropic-ai/sdk (1.x): the adapter a user
// writes to test an SDK-based client with `wirecheck test messages-client --client "node examples/anthropic-sdk-client.mjs"`.
import Anthropic, { APIConnectionError, APIError, RateLimitError } from '@anthropic-ai/sdk';

function fail(kind, message, status) {
  process.stdout.write(`${JSON.stringify({ error: { kind, status, message } })}\n`);
  process.exitCode = 1;
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const apiKey = process.env.ANTHROPIC_API_KEY;
if (!apiKey) {
  fail('missing_api_key', 'ANTHROPIC_API_KEY is not set');
} else {
  const client = new Anthropic({ apiKey, baseURL: process.env.ANTHROPIC_BASE_URL });
  try {
    const { stream, ...request } = body;
    const message = stream
      ? await client.messages.stream(request).finalMessage()
      : await client.messages.create(request);
    process.stdout.write(`${JSON.stringify(message)}\n`);
  } catch (error) {
    if (error instanceof RateLimitError) fail('rate_limit', error.message, error.status);
    else if (error instanceof APIConnectionError) fail('connection', error.message);
    else if (error instanceof APIError && error.status !== undefined)
      fail('status', error.message, error.status);
    else fail('stream', String(error?.message ?? error));
  }
}
