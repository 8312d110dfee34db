// The official-SDK messages client of anthropic-sdk-client.mjs, kept warm (docs/warm-targets.md):
// the SDK is loaded once, and each case of the suite is a small relay process instead of a new
// Node.js process that loads the SDK again. Start it once, then point the suite at the relay:
//   node examples/anthropic-sdk-client-warm.mjs /tmp/sdk-client.sock &
//   npx wirecheck test messages-client --client "perl bin/warm-relay.pl /tmp/sdk-client.sock"
// The first line it prints is the --client value, the relay by its absolute path: pass that line.
// Those paths are a clone's; where wirecheck is installed, both files are under
// node_modules/wirecheck/ (examples/ and bin/). Each case brings its own environment
// (ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY point at that case's mock), so a client is made per case.
import Anthropic, { APIConnectionError, APIError, RateLimitError } from '@anthropic-ai/sdk';
import { startWarmServer, WARM_RELAY_PATH } from 'wirecheck';

const failure = (kind, message, status) => ({
  stdout: `${JSON.stringify({ error: { kind, status, message } })}\n`,
  exitCode: 1,
});

/** One case: what anthropic-sdk-client.mjs prints and exits with for this request and environment. */
async function answer(text, env, signal) {
  const body = JSON.parse(text);
  if (!env.ANTHROPIC_API_KEY) return failure('missing_api_key', 'ANTHROPIC_API_KEY is not set');
  const client = new Anthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL });
  try {
    const { stream, ...request } = body;
    const message = stream
      ? await client.messages.stream(request, { signal }).finalMessage()
      : await client.messages.create(request, { signal });
    return { stdout: `${JSON.stringify(message)}\n`, exitCode: 0 };
  } catch (error) {
    if (error instanceof RateLimitError) return failure('rate_limit', error.message, error.status);
    if (error instanceof APIConnectionError) return failure('connection', error.message);
    if (error instanceof APIError && error.status !== undefined)
      return failure('status', error.message, error.status);
    return failure('stream', String(error?.message ?? error));
  }
}

const socket = process.argv[2];
if (!socket) {
  process.stderr.write('usage: node anthropic-sdk-client-warm.mjs SOCKET\n');
  process.exit(2);
}
const server = await startWarmServer({
  socket,
  log: (line) => process.stderr.write(`anthropic-sdk-client-warm: ${line}\n`),
  async handler({ stdin, env, writeStdout, writeStderr, signal }) {
    const chunks = [];
    for await (const chunk of stdin) chunks.push(chunk);
    try {
      const { stdout, exitCode } = await answer(Buffer.concat(chunks).toString('utf8'), env, signal);
      writeStdout(stdout);
      return exitCode;
    } catch (error) {
      // As the cold adapter dies on a stdin that is not JSON: a message on stderr, exit 1.
      writeStderr(`${error?.stack ?? error}\n`);
      return 1;
    }
  },
});
process.stdout.write(`perl ${WARM_RELAY_PATH} ${server.socket}\n`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close().then(() => process.exit(0)));
}
