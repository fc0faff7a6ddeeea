import type { Tracing, TracingOptions } from './start-tracing.js';

interface Running {
  settings: string;
  opened: Promise<Tracing>;
  holders: number;
}

let running: Running | undefined;
const exporterIds = new WeakMap<object, number>();
let exporters = 0;

/**
 * Opens tracing once per process. A start while it runs with the same settings shares it (the
 * last holder's shutdown stops it, an earlier one only flushes); other settings are refused, since
 * one process has one set of observers and a second would record every span again.
 */
export function startOnce(
  options: TracingOptions,
  open: (options: TracingOptions) => Promise<Tracing>,
): Promise<Tracing> {
  const settings = settingsOf(options);
  if (running && running.settings !== settings) {
    return Promise.reject(
      new Error(
        `tracing is already started in this process with other settings (${running.settings}); shut it down before starting it with ${settings}`,
      ),
    );
  }
  if (running) running.holders++;
  else {
    const state: Running = { settings, opened: open(options), holders: 1 };
    running = state;
    state.opened.catch(() => {
      if (running === state) running = undefined;
    });
  }
  return hold(running);
}

async function hold(state: Running): Promise<Tracing> {
  const opened = await state.opened;
  let closing: Promise<void> | undefined;
  return {
    scrubWith: (scrubber) => opened.scrubWith(scrubber),
    flush: () => opened.flush(),
    shutdown: () => {
      closing ??= (() => {
        state.holders--;
        if (state.holders > 0) return opened.flush();
        if (running === state) running = undefined;
        return opened.shutdown();
      })();
      return closing;
    },
  };
}

// What makes two starts record differently: content capture, where spans go, name and sampling.
function settingsOf(options: TracingOptions): string {
  const env = options.env ?? {};
  let exporter = 'OTLP';
  const given = options.tracerProvider ?? options.exporter;
  if (given) {
    if (!exporterIds.has(given)) exporterIds.set(given, ++exporters);
    exporter = `${options.tracerProvider ? 'tracer provider' : 'exporter'} #${exporterIds.get(given)}`;
  }
  return [
    `content ${options.captureContent ? 'on' : 'off'}`,
    exporter,
    `service ${env.OTEL_SERVICE_NAME || 'agentctl'}`,
    `sampler ${env.OTEL_TRACES_SAMPLER ?? 'default'}${env.OTEL_TRACES_SAMPLER_ARG ? `:${env.OTEL_TRACES_SAMPLER_ARG}` : ''}`,
  ].join(', ');
}
