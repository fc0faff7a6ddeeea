// Apart from tracing-subjects.js, which loads @agentctl/tracing: a child that must never load it
// (tracing never imported) still reads these.
/** The labels of the subjects that take "tracing on" apart, in table order. */
export const PART_LABELS = {
  observerOnly: 'agentctl Runner, a run observer doing nothing',
  clockOnly: 'lower bound: the clock read where span times are taken',
  leastRecords: 'the least span records as objects, kept in batches, no export',
  recordsDropped: 'agentctl Runner, spans made in batches, dropped unread',
  rowsOnly: 'agentctl Runner, span rows written, never made into spans',
};

/** The keys of those subjects when BENCH_TRACING_PARTS=1 asks for them, otherwise none. */
export const TRACING_PARTS = process.env.BENCH_TRACING_PARTS === '1' ? Object.keys(PART_LABELS) : [];
