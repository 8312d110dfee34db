import type { z } from 'zod';
import { cutAtFirstBad } from '../../protocol/first-bad-element.js';
import {
  CustomToolDefinition,
  MessageRequest,
  ToolDefinition,
  ToolResultContent,
  Turn,
} from '../../protocol/messages/index.js';

/*
 * zod reports every bad element of an array, one issue each (about 1.1 KB for a union of
 * block shapes), so one request of a few MB (`"messages":[0,0,...]`, a turn of a million bad
 * blocks) cost the mock a gigabyte of heap to describe, inside wirecheck's own process. Each
 * array of a request is cut after its first bad element before the request is parsed, inner
 * arrays before the element holding them is judged. The element schemas are the request
 * schema's own, so a cut request is refused exactly when the whole one is, at the same first
 * issue (the refusal names only the first).
 */

const Block = Turn.shape.content.options[1].element;
const ResultPart = ToolResultContent.options[1].element;
const SystemBlock = MessageRequest.shape.system.unwrap().options[1].element;
const StopSequence = MessageRequest.shape.stop_sequences.unwrap().element;
const RequiredName = CustomToolDefinition.shape.input_schema.shape.required.unwrap().unwrap().element;

type Inner = (item: unknown) => unknown;

/**
 * `body` with each of its arrays cut after its first bad element; `body` itself (the same
 * object) when no array holds a bad element, so a valid request is parsed as it came.
 */
export function cutRequest(body: object): object {
  let cut: unknown = body;
  cut = cutArray(cut, 'messages', Turn, (turn) => cutArray(turn, 'content', Block, cutBlock));
  cut = cutArray(cut, 'tools', ToolDefinition, cutTool);
  cut = cutArray(cut, 'system', SystemBlock);
  cut = cutArray(cut, 'stop_sequences', StopSequence);
  return cut as object;
}

function cutBlock(block: unknown): unknown {
  return cutArray(block, 'content', ResultPart);
}

function cutTool(tool: unknown): unknown {
  return within(tool, 'input_schema', (schema) => cutArray(schema, 'required', RequiredName));
}

/**
 * `value` with its array `field` cut after the first element `element` refuses, each element
 * first given to `inner` (to cut the arrays inside it). `value` when nothing changed.
 */
function cutArray(value: unknown, field: string, element: z.ZodType, inner?: Inner): unknown {
  const holder = within(value, field, (items) =>
    Array.isArray(items) && inner ? mapChanged(items, inner) : items,
  );
  return cutAtFirstBad(holder, field, element).judged;
}

/** `value` with `value[field]` replaced by `change(value[field])`; `value` itself when that is unchanged or `value` is no object. */
function within(value: unknown, field: string, change: Inner): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const before = (value as Record<string, unknown>)[field];
  if (before === undefined) return value;
  const after = change(before);
  return after === before ? value : { ...value, [field]: after };
}

/** `items` mapped by `inner`; `items` itself when no element changed. */
function mapChanged(items: readonly unknown[], inner: Inner): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const after = inner(items[i]);
    if (out === undefined && after !== items[i]) out = items.slice(0, i);
    out?.push(after);
  }
  return out ?? items;
}
