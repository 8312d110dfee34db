#!/usr/bin/env node
// The official SDK's own bash tool (`betaBashTool` of @anthropic-ai/sdk/tools/agent-toolset/node:
// one persistent /bin/bash per session) as a wirecheck runner target: tool_use JSON lines on
// stdin, one tool_result JSON line each on stdout (TARGETS.md, runner). This is the adapter a user
// writes; what it passes and fails is in docs/runner-compatibility.md. The SDK's
// tool runs an unrestricted /bin/bash: run this inside a sandbox you control.
//
//   wirecheck test runner --runner "node examples/anthropic-sdk-bash-runner.mjs"
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { betaBashTool } from '@anthropic-ai/sdk/tools/agent-toolset/node';

const workdir = process.env.WIRECHECK_WORKDIR ?? process.cwd();
try {
  mkdirSync(workdir, { recursive: true });
} catch {
  // The SDK's tool then meets the missing folder itself: what it answers is its own.
}
const timeoutS = process.env.WIRECHECK_TIMEOUT_S;
const bash = betaBashTool({ workdir });

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  let toolUse;
  try {
    toolUse = JSON.parse(line);
  } catch {
    toolUse = undefined;
  }
  const id = typeof toolUse?.id === 'string' ? toolUse.id : '';
  let content;
  let isError = false;
  try {
    if (typeof toolUse !== 'object' || toolUse === null) throw new Error('the line is not a tool_use block');
    const input = {
      ...toolUse.input,
      ...(timeoutS === undefined ? {} : { timeout_ms: Number(timeoutS) * 1000 }),
    };
    content = await bash.run(bash.parse(input), { toolUse, toolUseBlock: toolUse });
  } catch (e) {
    content = e?.content ?? (e instanceof Error ? e.message : String(e));
    isError = true;
  }
  process.stdout.write(
    `${JSON.stringify({ type: 'tool_result', tool_use_id: id, content, is_error: isError })}\n`,
  );
}
bash.close?.();
