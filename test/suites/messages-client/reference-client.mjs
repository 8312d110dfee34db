// The reference messages client (src/clients/messages, compiled to dist/ by
// test/global-setup.ts) as a target command: the same call `wirecheck messages-client`
// makes, without loading the CLI.
import { runMessagesClientCommand } from '../../../dist/clients/messages/index.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const result = await runMessagesClientCommand({
  stdin: Buffer.concat(chunks).toString('utf8'),
  env: process.env,
});
process.stdout.write(result.stdout);
process.stderr.write(result.stderr);
process.exitCode = result.exitCode;
