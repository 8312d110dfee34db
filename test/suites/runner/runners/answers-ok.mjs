// A runner that runs nothing: every valid tool_use gets "ok". The checks that read a value the
// command prints must see nothing to judge, never a pass.
import { createInterface } from 'node:readline';

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  let id = '';
  try {
    id = JSON.parse(line).id ?? '';
  } catch {}
  process.stdout.write(
    `${JSON.stringify({ type: 'tool_result', tool_use_id: id, content: 'ok', is_error: false })}\n`,
  );
}
