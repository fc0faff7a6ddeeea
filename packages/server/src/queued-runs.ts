import type { AgentEvent, ApprovalDecision } from '@agentctl/core';

/** One entry of a queued run's event stream: an event, or the end of the run. */
export interface QueuedRunEntry {
  /** Ordered id, sent as the SSE id and accepted back as `Last-Event-ID`. */
  id: string;
  event?: AgentEvent;
  end?: unknown;
}

/**
 * The run queue as the server uses it (`@agentctl/queue`'s RunQueue fits): runs go to workers, and
 * their events come back from a store every server node shares.
 */
export interface QueuedRuns {
  enqueue(request: {
    agent: string;
    sessionId?: string;
    userId?: string;
    input?: string;
    decisions?: ApprovalDecision[];
  }): Promise<{ runId: string; sessionId: string }>;
  /** Whether a run of that id was enqueued. */
  exists(runId: string): Promise<boolean>;
  /** The run's entries after `after` (default: from the start) until its end or `signal`. */
  follow(runId: string, after?: string, signal?: AbortSignal): AsyncIterable<QueuedRunEntry>;
  /** Jobs by state and workers connected, for `GET /health`. */
  depth(): Promise<object>;
}
