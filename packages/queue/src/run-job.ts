import type { ApprovalDecision, InvocationCheckpoint } from '@agentctl/core';

/** The queue every serve node and worker of a deployment shares. */
export const RUN_QUEUE_NAME = 'agentctl-runs';

/** What a queued run asks for: a new user message, or decisions for a paused session. */
export interface RunRequest {
  agent: string;
  /** The session to continue; a new id is made when left out. */
  sessionId?: string;
  userId?: string;
  input?: string;
  decisions?: ApprovalDecision[];
}

/** The data of one job on the run queue. */
export interface RunJobData {
  /** The run id (the job id); a schedule's jobs have none and take theirs from the job id. */
  runId?: string;
  agent: string;
  /** The session; a schedule's job without one runs in a new session named after the run. */
  sessionId?: string;
  userId?: string;
  input?: string;
  decisions?: ApprovalDecision[];
  /**
   * For a resume: the paused checkpoint as the first worker found it, kept so a worker that picks
   * the job up again knows which invocation and attempt are this run's even after the session moved on.
   */
  checkpoint?: InvocationCheckpoint;
  /** Set by a schedule: its name. */
  schedule?: string;
  /** The name of the project that queued it: a worker of another project refuses it. */
  project?: string;
}

/** How a queued run ended, as its last stream entry and the job's return value tell it. */
export interface RunEnd {
  status: 'complete' | 'paused' | 'error';
  sessionId: string;
  output?: string;
  /** The error code (an AgentError code, or USAGE for a refused request). */
  code?: string;
  message?: string;
  /** Who the error is down to (an AgentError's blame), when it ended the run. */
  blame?: string;
  /** The calls waiting for a decision when paused. */
  pending?: unknown[];
}
