// Apart from tracing-subjects.js, which loads @agentctl/tracing: a child that must never load it
// (tracing never imported) still reads this list.
/** The subjects of tracing-subjects.js that take "tracing on" apart, in table order (BENCH_TRACING_PARTS=1). */
export const TRACING_PARTS = ['observerOnly', 'clockOnly', 'leastRecords', 'recordsDropped'];
