// The reference agent (src/clients/agent with the reference runner, compiled to dist/ by
// test/global-setup.ts) as a target command: the same call `wirecheck agent` makes,
// without loading the CLI.
import { runAgentCommand } from '../../../dist/clients/agent/index.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
process.exitCode = await runAgentCommand({
  stdin: Buffer.concat(chunks).toString('utf8'),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
