import {
  type Attributes,
  type AttributeValue,
  type SpanContext,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { chatAttributes } from './chat-facts.js';
import { GEN_AI } from './gen-ai.js';
import type { PendingChat } from './pending-chat.js';
import type { PendingSpan, RareParts } from './pending-span.js';
import type { PendingTool } from './pending-tool.js';
import { newSpanId } from './span-ids.js';
import { TableSpan } from './table-span.js';
import { toolAttributes } from './tool-facts.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

const ANSWERED = 0;
const FAILED = 1;
const TOOL = 2;
const KEPT = 3;

// Numbers per row: a chat's settings (NaN when unset) and its answer's token counts.
const NUMBERS = 7;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/**
 * The ended spans of one batch until it is exported. A run's many spans (a `chat` per model call,
 * an `execute_tool` per tool call) are rows: their numbers in typed arrays, their strings in arrays
 * made once. Ending one allocates nothing, and nothing of it is an object that the young
 * generation's collections copy again and again while it waits for its batch. The spans the
 * exporter reads are made from the rows when the batch is taken, and die with the export. The few
 * other spans (an invocation's, an agent's) are kept as the objects they are.
 *
 * String columns by kind of row: `#s1` provider or tool name, `#s2` request model or call id,
 * `#s3` agent, `#s4` conversation id, `#s5` response model, `#s6` finish reason (chat only).
 */
export class SpanTable {
  /** Rows the table holds at most. */
  readonly capacity: number;
  /** Rows written since the table was last taken. */
  length = 0;
  readonly #kinds: Uint8Array;
  readonly #times: Float64Array;
  readonly #numbers: Float64Array;
  readonly #names: string[];
  readonly #traceIds: string[];
  readonly #spanIds: (string | undefined)[];
  readonly #parents: (SpanContext | undefined)[];
  readonly #rare: (RareParts | undefined)[];
  readonly #kept: (ReadableSpan | undefined)[];
  readonly #s1: string[];
  readonly #s2: string[];
  readonly #s3: string[];
  readonly #s4: (string | undefined)[];
  readonly #s5: string[];
  readonly #s6: string[];

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#kinds = new Uint8Array(capacity);
    this.#times = new Float64Array(2 * capacity);
    this.#numbers = new Float64Array(NUMBERS * capacity);
    this.#names = new Array<string>(capacity).fill('');
    this.#traceIds = new Array<string>(capacity).fill('');
    this.#spanIds = new Array<string | undefined>(capacity).fill(undefined);
    this.#parents = new Array<SpanContext | undefined>(capacity).fill(undefined);
    this.#rare = new Array<RareParts | undefined>(capacity).fill(undefined);
    this.#kept = new Array<ReadableSpan | undefined>(capacity).fill(undefined);
    this.#s1 = new Array<string>(capacity).fill('');
    this.#s2 = new Array<string>(capacity).fill('');
    this.#s3 = new Array<string>(capacity).fill('');
    this.#s4 = new Array<string | undefined>(capacity).fill(undefined);
    this.#s5 = new Array<string>(capacity).fill('');
    this.#s6 = new Array<string>(capacity).fill('');
  }

  /** True when no row is left. */
  get full(): boolean {
    return this.length === this.capacity;
  }

  /** Writes an ended `chat` span's row. */
  chat(span: PendingChat, ended: number): void {
    const answer = span.answered;
    const row = this.#row(answer === undefined ? FAILED : ANSWERED, span, span.started, ended);
    const facts = span.facts;
    this.#s1[row] = facts.provider;
    this.#s2[row] = facts.requestModel;
    this.#s3[row] = facts.agent;
    this.#s4[row] = facts.conversationId;
    const at = row * NUMBERS;
    const numbers = this.#numbers;
    numbers[at] = facts.temperature ?? Number.NaN;
    numbers[at + 1] = facts.topP ?? Number.NaN;
    numbers[at + 2] = facts.maxTokens ?? Number.NaN;
    if (answer !== undefined) {
      this.#s5[row] = answer.responseModel;
      this.#s6[row] = answer.finishReason;
      numbers[at + 3] = answer.inputTokens;
      numbers[at + 4] = answer.outputTokens;
      numbers[at + 5] = answer.cacheReadTokens;
      numbers[at + 6] = answer.cacheWriteTokens;
    }
    // Recorded content (opt-in) is rare: it goes with the attributes set one by one.
    if (facts.system !== undefined) this.#rareAttribute(row, GEN_AI.systemInstructions, facts.system);
    if (facts.input !== undefined) this.#rareAttribute(row, GEN_AI.inputMessages, facts.input);
    if (answer?.output !== undefined) this.#rareAttribute(row, GEN_AI.outputMessages, answer.output);
  }

  /** Writes an ended `execute_tool` span's row. */
  tool(span: PendingTool, started: number, ended: number): void {
    const row = this.#row(TOOL, span, started, ended);
    const facts = span.facts;
    this.#s1[row] = facts.toolName;
    this.#s2[row] = facts.callId;
    if (facts.args !== undefined) this.#rareAttribute(row, GEN_AI.toolArguments, facts.args);
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

  #rareAttribute(row: number, key: string, value: AttributeValue): void {
    let rare = this.#rare[row];
    if (rare === undefined) {
      rare = {};
      this.#rare[row] = rare;
    }
    // Set ones win: a tool's result is set on the span, its arguments are facts.
    rare.attributes = { [key]: value, ...rare.attributes };
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
      const attributes = kind === TOOL ? this.#toolAttributes(row) : this.#chatAttributes(row, kind);
      if (rare?.attributes !== undefined) Object.assign(attributes, rare.attributes);
      spans[row] = new TableSpan(
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
    }
    // What the rows held is let go: parents, set parts and kept spans are objects; the strings
    // are the project's few names and ids the session keeps anyway, overwritten by the next batch.
    this.#parents.fill(undefined, 0, length);
    this.#rare.fill(undefined, 0, length);
    this.#kept.fill(undefined, 0, length);
    this.#spanIds.fill(undefined, 0, length);
    this.length = 0;
    return spans;
  }

  #chatAttributes(row: number, kind: number): Attributes {
    const at = row * NUMBERS;
    const numbers = this.#numbers;
    const facts = {
      provider: this.#s1[row] as string,
      requestModel: this.#s2[row] as string,
      agent: this.#s3[row] as string,
      conversationId: this.#s4[row],
      temperature: numberOrUndefined(numbers[at] as number),
      topP: numberOrUndefined(numbers[at + 1] as number),
      maxTokens: numberOrUndefined(numbers[at + 2] as number),
      system: undefined,
      input: undefined,
    };
    const answer =
      kind === FAILED
        ? undefined
        : {
            responseModel: this.#s5[row] as string,
            finishReason: this.#s6[row] as string,
            inputTokens: numbers[at + 3] as number,
            outputTokens: numbers[at + 4] as number,
            cacheReadTokens: numbers[at + 5] as number,
            cacheWriteTokens: numbers[at + 6] as number,
            output: undefined,
          };
    return chatAttributes(facts, answer);
  }

  #toolAttributes(row: number): Attributes {
    return toolAttributes({
      toolName: this.#s1[row] as string,
      callId: this.#s2[row] as string,
      args: undefined,
    });
  }
}

function numberOrUndefined(value: number): number | undefined {
  return Number.isNaN(value) ? undefined : value;
}
