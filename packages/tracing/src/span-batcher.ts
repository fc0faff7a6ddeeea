import { context, createContextKey, diag } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { PendingChat } from './pending-chat.js';
import type { PendingTool } from './pending-tool.js';
import { SpanTable } from './span-table.js';

type InstrumentationScope = ReadableSpan['instrumentationScope'];

/** How a {@link SpanBatcher} batches, with the batch span processor's defaults and `OTEL_BSP_*` names. */
export interface BatchSettings {
  /** Spans per export (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, 512). */
  maxExportBatchSize: number;
  /** Spans waiting for export at most; more are dropped (`OTEL_BSP_MAX_QUEUE_SIZE`, 2048). */
  maxQueueSize: number;
  /** Longest wait before spans are exported (`OTEL_BSP_SCHEDULE_DELAY`, 5000 ms). */
  scheduledDelayMillis: number;
  /** Longest wait for one export (`OTEL_BSP_EXPORT_TIMEOUT`, 30000 ms). */
  exportTimeoutMillis: number;
}

const DEFAULTS: BatchSettings = {
  maxExportBatchSize: 512,
  maxQueueSize: 2048,
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30_000,
};

const VARIABLES: Record<keyof BatchSettings, string> = {
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
};

/** The batch settings the `OTEL_BSP_*` variables ask for; a value that is not a number is ignored. */
export function batchSettings(env: Readonly<Record<string, string | undefined>>): BatchSettings {
  const settings = { ...DEFAULTS };
  for (const key of Object.keys(VARIABLES) as (keyof BatchSettings)[]) {
    const raw = env[VARIABLES[key]]?.trim();
    const value = raw ? Number(raw) : Number.NaN;
    if (Number.isFinite(value) && value >= (key === 'scheduledDelayMillis' ? 0 : 1)) settings[key] = value;
  }
  settings.maxExportBatchSize = Math.min(settings.maxExportBatchSize, settings.maxQueueSize);
  return settings;
}

// The SDK's own key (`suppressTracing` in @opentelemetry/core): an exporter's HTTP request is not
// traced by an instrumentation the application may have installed.
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * agentctl's batch span processor, for the spans it makes itself: ended spans are rows of a
 * {@link SpanTable} until their batch is exported, at `maxExportBatchSize` spans or after
 * `scheduledDelayMillis`, whichever comes first; one export runs at a time, and spans beyond
 * `maxQueueSize` waiting for one are dropped (as the SDK's `BatchSpanProcessor` does, whose settings
 * and variables these are). Other spans (an invocation's, an agent's) come in through `onEnd`.
 */
export class SpanBatcher implements SpanProcessor {
  readonly #exporter: SpanExporter;
  readonly #settings: BatchSettings;
  readonly #resource: Resource;
  readonly #scope: InstrumentationScope;
  readonly #table: SpanTable;
  // Batches taken from the table and waiting for the export before them to finish.
  readonly #queue: ReadableSpan[][] = [];
  #queued = 0;
  #exporting: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  // The last timer, cleared or not, kept alive for its hidden class (as the table keeps its last
  // span): the code that arms timers is not optimized again after every full collection.
  #lastTimer: NodeJS.Timeout | undefined;
  #dropped = 0;
  #shutDown = false;
  // Set once shutdown starts, and once an export fails after that: the batches after it are dropped.
  #closing = false;
  #closingFailed = false;
  // Spans given up on at shutdown, after an export failed; said with the failure.
  #abandoned = 0;
  // The first export failure since the last flush, which the flush then reports.
  #failure: Error | undefined;

  constructor(
    exporter: SpanExporter,
    resource: Resource,
    scope: InstrumentationScope,
    settings: BatchSettings = DEFAULTS,
  ) {
    this.#exporter = exporter;
    this.#settings = settings;
    this.#resource = resource;
    this.#scope = scope;
    this.#table = new SpanTable(settings.maxExportBatchSize);
  }

  /** The resource every span of this batcher has. */
  get resource(): Resource {
    return this.#resource;
  }

  /** The instrumentation scope every span of this batcher has. */
  get scope(): InstrumentationScope {
    return this.#scope;
  }

  /** Writes an ended `chat` span. */
  chat(span: PendingChat, ended: number): void {
    if (this.#room()) {
      this.#table.chat(span, ended);
      this.#written();
    }
  }

  /** Writes an ended `execute_tool` span. */
  tool(span: PendingTool, started: number, ended: number): void {
    if (this.#room()) {
      this.#table.tool(span, started, ended);
      this.#written();
    }
  }

  onStart(): void {}

  /** Takes an ended span made elsewhere (an invocation's or an agent's record). */
  onEnd(span: ReadableSpan): void {
    if (this.#room()) {
      this.#table.keep(span);
      this.#written();
    }
  }

  /** Exports every span ended so far; rejects when an export since the last flush failed. */
  async forceFlush(): Promise<void> {
    this.#takeTable();
    while (this.#exporting) {
      await this.#exporting;
      this.#takeTable();
    }
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure && this.#abandoned > 0) {
      const abandoned = this.#abandoned;
      this.#abandoned = 0;
      throw new Error(`${failure.message} (and ${abandoned} more span(s) were dropped without trying)`, {
        cause: failure,
      });
    }
    if (failure) throw failure;
  }

  /**
   * Exports what is left, then shuts the exporter down; spans ended later are dropped. Once an
   * export fails here (the collector is down, or answers with an error) the batches still waiting
   * are dropped: trying each in turn would hold the process the exporter's timeout per batch.
   * When `stop` aborts (out of time, a refused connection) nothing more is waited for: every span
   * not exported yet is dropped, and the rejection says how many and why (`stop`'s reason).
   */
  async shutdown(stop?: AbortSignal): Promise<void> {
    if (this.#shutDown) return;
    this.#closing = true;
    try {
      await (stop ? this.#flushUnless(stop) : this.forceFlush());
    } finally {
      this.#shutDown = true;
      clearTimeout(this.#timer);
      // The exporter's shutdown waits for its requests in flight, each for the exporter's own
      // timeout: an export this batcher already gave up on would hold the process that long again.
      if (!stop?.aborted) await this.#exporterShutdown(stop);
    }
  }

  // The flush, unless `stop` aborts first: then what waits is dropped and counted in the error.
  async #flushUnless(stop: AbortSignal): Promise<void> {
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => {
        const waiting = this.#queued + this.#table.length;
        // Nothing waits: the flush settles by itself, with the failure it met if any.
        if (waiting === 0) return;
        this.#closingFailed = true;
        this.#abandon();
        this.#abandoned = 0;
        const why = stop.reason instanceof Error ? stop.reason.message : String(stop.reason);
        reject(new Error(`${waiting} span(s) dropped: ${why}`, { cause: stop.reason }));
      };
      if (stop.aborted) onAbort();
      else stop.addEventListener('abort', onAbort, { once: true });
    });
    stopped.catch(() => undefined);
    try {
      // `stopped` first: when both are settled at once (a stop given already stopped), it wins.
      await Promise.race([stopped, this.forceFlush()]);
    } finally {
      if (onAbort) stop.removeEventListener('abort', onAbort);
    }
  }

  #exporterShutdown(stop: AbortSignal | undefined): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    return Promise.race([
      this.#exporter.shutdown(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#settings.exportTimeoutMillis);
        timer.unref();
        onAbort = resolve;
        stop?.addEventListener('abort', onAbort, { once: true });
      }),
    ]).finally(() => {
      clearTimeout(timer);
      if (onAbort) stop?.removeEventListener('abort', onAbort);
    });
  }

  // Whether a span can be written: not after shutdown, and not while the queue is full.
  #room(): boolean {
    if (this.#shutDown) return false;
    if (this.#table.full) this.#takeTable();
    if (this.#table.full) {
      if (this.#dropped++ === 0) diag.debug('agentctl tracing: the export queue is full, dropping spans');
      return false;
    }
    return true;
  }

  #written(): void {
    if (this.#table.full) this.#takeTable();
    else this.#schedule();
  }

  // The rows written wait at most the scheduled delay.
  #schedule(): void {
    if (this.#timer === undefined && this.#table.length > 0 && !this.#shutDown) {
      this.#lastTimer = setTimeout(() => {
        this.#timer = undefined;
        this.#takeTable();
      }, this.#settings.scheduledDelayMillis);
      this.#lastTimer.unref();
      this.#timer = this.#lastTimer;
    }
  }

  // Shutting down after a failed export: what waits (queued batches, the table's rows) is dropped.
  #abandon(): void {
    for (const batch of this.#queue.splice(0)) {
      this.#abandoned += batch.length;
      this.#queued -= batch.length;
    }
    if (this.#table.length > 0) this.#abandoned += this.#table.take(this.#resource, this.#scope).length;
  }

  // The table's rows become a batch for the exporter, unless the queue has no room for them.
  #takeTable(): void {
    if (this.#closingFailed) {
      this.#abandon();
      return;
    }
    const table = this.#table;
    if (table.length === 0 || this.#queued + table.length > this.#settings.maxQueueSize) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = table.take(this.#resource, this.#scope);
    if (this.#dropped > 0) {
      diag.warn(`agentctl tracing: dropped ${this.#dropped} spans because the export queue was full`);
      this.#dropped = 0;
    }
    this.#queue.push(batch);
    this.#queued += batch.length;
    this.#exporting ??= this.#exportQueue();
  }

  async #exportQueue(): Promise<void> {
    try {
      for (let batch = this.#queue.shift(); batch; batch = this.#queue.shift()) {
        try {
          await this.#export(batch);
        } catch (error) {
          this.#failure ??= error instanceof Error ? error : new Error(String(error));
          if (this.#closing) this.#closingFailed = true;
        } finally {
          this.#queued -= batch.length;
        }
        if (this.#closingFailed) this.#abandon();
        // A table that filled while the queue had no room for it goes now; fewer rows wait.
        if (this.#table.full) this.#takeTable();
        else this.#schedule();
      }
    } finally {
      this.#exporting = undefined;
    }
  }

  #export(batch: ReadableSpan[]): Promise<void> {
    const timeout = this.#settings.exportTimeoutMillis;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`span export timed out after ${timeout} ms`)), timeout);
      // Its request holds the process while it runs; an export given up on at shutdown must not.
      timer.unref();
      context.with(context.active().setValue(SUPPRESS_TRACING, true), () => {
        this.#exporter.export(batch, (result) => {
          clearTimeout(timer);
          if (result.code === 0) resolve();
          else reject(result.error ?? new Error('span export failed'));
        });
      });
    });
  }
}
