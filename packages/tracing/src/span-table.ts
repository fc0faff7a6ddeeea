import {
  type Attributes,
  type SpanContext,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type ChatAnswer, type ChatFacts, chatAttributes } from './chat-facts.js';
import type { PendingChat } from './pending-chat.js';
import type { PendingSpan, RareParts } from './pending-span.js';
import type { PendingTool } from './pending-tool.js';
import { newSpanId } from './span-ids.js';
import { TableSpan } from './table-span.js';
import { type ToolFacts, toolAttributes } from './tool-facts.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

const CHAT = 0;
const TOOL = 1;
const KEPT = 2;

const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/**
 * The ended spans of one batch until it is exported. A run's many spans (a `chat` per model call,
 * an `execute_tool` per tool call) are rows: their times in a typed array, and in arrays made once
 * their name, ids, parent and the facts the observer read their call into. Ending one allocates
 * nothing; the spans the exporter reads, and their attributes, are made from the rows when the
 * batch is taken, and die with the export. The few other spans (an invocation's, an agent's) are
 * kept as the objects they are.
 */
export class SpanTable {
  /** Rows the table holds at most. */
  readonly capacity: number;
  /** Rows written since the table was last taken. */
  length = 0;
  readonly #kinds: Uint8Array;
  readonly #times: Float64Array;
  readonly #names: string[];
  readonly #traceIds: string[];
  readonly #spanIds: (string | undefined)[];
  readonly #parents: (SpanContext | undefined)[];
  readonly #rare: (RareParts | undefined)[];
  // A chat's request facts or a tool call's facts; a chat's answer; a kept span.
  readonly #facts: (ChatFacts | ToolFacts | undefined)[];
  readonly #answers: (ChatAnswer | undefined)[];
  readonly #kept: (ReadableSpan | undefined)[];
  // The last span made, kept alive until the next batch's: V8 keeps a hidden class only while some
  // object has it, and throws away the optimized code built on it when it dies, so a full
  // collection between two bursts of runs would otherwise make every burst optimize `take` again.
  #lastMade: TableSpan | undefined;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#kinds = new Uint8Array(capacity);
    this.#times = new Float64Array(2 * capacity);
    this.#names = new Array<string>(capacity).fill('');
    this.#traceIds = new Array<string>(capacity).fill('');
    this.#spanIds = new Array<string | undefined>(capacity).fill(undefined);
    this.#parents = new Array<SpanContext | undefined>(capacity).fill(undefined);
    this.#rare = new Array<RareParts | undefined>(capacity).fill(undefined);
    this.#facts = new Array<ChatFacts | ToolFacts | undefined>(capacity).fill(undefined);
    this.#answers = new Array<ChatAnswer | undefined>(capacity).fill(undefined);
    this.#kept = new Array<ReadableSpan | undefined>(capacity).fill(undefined);
  }

  /** True when no row is left. */
  get full(): boolean {
    return this.length === this.capacity;
  }

  /** Writes an ended `chat` span's row: answered, or failed (no answer). */
  chat(span: PendingChat, ended: number): void {
    const row = this.#row(CHAT, span, span.started, ended);
    this.#facts[row] = span.facts;
    this.#answers[row] = span.answered;
  }

  /** Writes an ended `execute_tool` span's row. */
  tool(span: PendingTool, started: number, ended: number): void {
    const row = this.#row(TOOL, span, started, ended);
    this.#facts[row] = span.facts;
  }

  /** Keeps a span that is already the exporter's kind of object. */
  keep(span: ReadableSpan): void {
    const row = this.length++;
    this.#kinds[row] = KEPT;
    this.#kept[row] = span;
  }

  #row(kind: number, span: PendingSpan, started: number, ended: number): number {
    const row = this.length++;
    this.#kinds[row] = kind;
    this.#times[2 * row] = started;
    this.#times[2 * row + 1] = ended;
    this.#names[row] = span.name;
    this.#traceIds[row] = span.traceId;
    this.#spanIds[row] = span.drawnSpanId;
    this.#parents[row] = span.parent;
    this.#rare[row] = span.rare;
    return row;
  }

  /** The rows as the exporter's spans, in the order they ended; the table is empty after. */
  take(resource: Resource, scope: InstrumentationScope): ReadableSpan[] {
    const length = this.length;
    const spans: ReadableSpan[] = new Array(length);
    for (let row = 0; row < length; row++) {
      const kind = this.#kinds[row];
      if (kind === KEPT) {
        spans[row] = this.#kept[row] as ReadableSpan;
        continue;
      }
      const rare = this.#rare[row];
      const attributes: Attributes =
        kind === TOOL
          ? toolAttributes(this.#facts[row] as ToolFacts)
          : chatAttributes(this.#facts[row] as ChatFacts, this.#answers[row]);
      if (rare?.attributes !== undefined) Object.assign(attributes, rare.attributes);
      this.#lastMade = new TableSpan(
        this.#names[row] as string,
        kind === TOOL ? SpanKind.INTERNAL : SpanKind.CLIENT,
        this.#traceIds[row] as string,
        this.#spanIds[row] ?? newSpanId(),
        this.#parents[row],
        this.#times[2 * row] as number,
        this.#times[2 * row + 1] as number,
        attributes,
        rare?.status ?? UNSET,
        rare?.events,
        resource,
        scope,
      );
      spans[row] = this.#lastMade;
    }
    // Objects the rows held are let go; names and ids are overwritten by the next batch.
    this.#parents.fill(undefined, 0, length);
    this.#rare.fill(undefined, 0, length);
    this.#facts.fill(undefined, 0, length);
    this.#answers.fill(undefined, 0, length);
    this.#kept.fill(undefined, 0, length);
    this.#spanIds.fill(undefined, 0, length);
    this.length = 0;
    return spans;
  }
}
