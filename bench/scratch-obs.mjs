import { createRequire } from 'node:module';
const req = createRequire(new URL('../packages/tracing/package.json', import.meta.url));
const { BatchSpanProcessor, AlwaysOnSampler } = req('@opentelemetry/sdk-trace-base');
const { defaultResource } = req('@opentelemetry/resources');
const { TraceObserver } = await import('../packages/tracing/dist/trace-observer.js');
const { RecordSink } = await import('../packages/tracing/dist/record-sink.js');
const { createAgent } = await import('../packages/core/dist/index.js');
let n = 0;
const processor = new BatchSpanProcessor({ export(s, done) { n += s.length; done({ code: 0 }); }, async shutdown() {} });
const DUMMY = { setAttribute() {}, setStatus() {}, addEvent() {}, end() {} };
const mode = process.argv[2] ?? 'records';
const sink = mode === 'dummy' ? { start: () => DUMMY } : new RecordSink({ processor, resource: defaultResource(), scope: { name: 'x' } }, new AlwaysOnSampler());
const obs = new TraceObserver(sink);
const agent = createAgent({ name: 'bench', provider: { name: 'zero', async chat() {}, async *stream() {} } });
const USAGE = { inputTokens: 1, outputTokens: 1 };
const RESP = { content: null, toolCalls: [], usage: USAGE, finishReason: 'tool_calls' };
const request = { model: 'zero', messages: [] };
let inv = 0;
function run(steps) {
  const info = { invocationId: `i${++inv}`, sessionId: `s${inv}`, agent };
  obs.event({ type: 'run_start' }, info);
  obs.event({ type: 'agent_start', agent: 'bench', branch: 'bench' }, info);
  for (let i = 0; i < steps; i++) {
    const o = obs.modelCall({ invocationId: info.invocationId, branch: 'bench', agent: 'bench', provider: 'zero', request });
    o.end(RESP);
    obs.event({ type: 'message' }, info);
    obs.event({ type: 'usage' }, info);
    const id = `call_${i}`;
    obs.event({ type: 'tool_call', call: { id, name: 'step', arguments: { n: i } }, branch: 'bench' }, info);
    obs.event({ type: 'tool_result', callId: id, isError: false, content: '1' }, info);
    obs.event({ type: 'message' }, info);
  }
  obs.event({ type: 'agent_end', branch: 'bench' }, info);
  obs.event({ type: 'run_end', status: 'complete', usage: USAGE }, info);
}
for (let r = 0; r < 6; r++) {
  const c0 = process.cpuUsage(); const t = performance.now();
  for (let i = 0; i < 4000; i++) { run(50); if (i % 5 === 4) await processor.forceFlush(); }
  const c = process.cpuUsage(c0);
  console.log(mode, 'ns/step wall', ((performance.now() - t) * 1e6 / 4000 / 50).toFixed(0), 'cpu', ((c.user + c.system) * 1000 / 4000 / 50).toFixed(0), n);
}
