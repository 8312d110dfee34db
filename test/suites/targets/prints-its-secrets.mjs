// A stdio tool server that fails at start-up printing its configuration, credentials
// included: the token it was given with --token, and the key it found in its environment.
const at = process.argv.indexOf('--token');
const token = at > 0 ? process.argv[at + 1] : undefined;
process.stderr.write(
  `auth failed: token ${token} was refused; OPENAI_API_KEY=${process.env.OPENAI_API_KEY}\n`,
);
process.stdout.write(
  `${JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32000, message: `token ${token} refused` } })}\n`,
);
process.exit(1);
