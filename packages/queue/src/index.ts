export { DetachedRunError, PublishingStore } from './publishing-store.js';
export { connectRedis, QueueUnreachableError, QueueUrlError } from './redis-connection.js';
export { RunEventLog, type RunStreamEntry } from './run-event-log.js';
export { RUN_QUEUE_NAME, type RunEnd, type RunJobData, type RunRequest } from './run-job.js';
export { attemptOf, INTERRUPTED_RESULT, planRun, type RunPlan } from './run-plan.js';
export { type QueueDepth, type RetrySettings, RunQueue, type RunQueueOptions } from './run-queue.js';
export { RunWorker, type RunWorkerOptions, type WorkerAgentLease } from './run-worker.js';
export {
  listSchedules,
  type RegisteredSchedule,
  type ScheduleDefinition,
  syncSchedules,
} from './schedules.js';
