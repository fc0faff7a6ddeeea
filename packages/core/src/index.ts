export { type Agent, type AgentType, checkAgentName, RESERVED_AGENT_NAMES } from './agent.js';
export type {
  AgentConfig,
  AgentResult,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalPolicyContext,
  ApprovalVerdict,
  ExecutedToolCall,
  Instruction,
  InstructionContext,
  ModelSettings,
  RunCheckpoint,
  RunLimits,
  RunOptions,
} from './agent-config.js';
export { agentTool } from './agent-tool.js';
export { branchOf, findAgent, findAgentPath, linkTree, listAgents, walkAgents } from './agent-tree.js';
export { approvalModeFor } from './approval-mode-for.js';
export {
  APPROVAL_MODES,
  type ApprovalMode,
  type ApprovalPolicyOptions,
  createApprovalPolicy,
} from './approval-policy.js';
export {
  APPROVAL_RULE_GRAMMAR,
  type ApprovalRule,
  approvalRuleMatcher,
  argumentsDeclared,
  bindApprovalRule,
  canonicalArgument,
  globMatcher,
  parseApprovalRule,
  shellArgumentMessage,
  stringArguments,
  type WrittenApprovalRule,
} from './approval-rule.js';
export { type BaseUrlParts, baseUrlParts } from './base-url-parts.js';
export { type BoundedRegExp, boundedRegExp, REGEXP_BUDGET_MS, RegExpTimeoutError } from './bounded-regexp.js';
export { childTable, forgetChild, guardChildren, killChild, recordChild } from './child-table.js';
export { credentialValues, isCredentialName, redactSecrets, urlCredentials } from './credential-values.js';
export { parseDuration } from './duration.js';
export { ERROR_TEXT_LIMIT, errorText, messageWithCause } from './error-text.js';
export {
  AGENT_ERROR_CODES,
  AgentError,
  type AgentErrorCode,
  type AgentErrorOptions,
  ChangedCallError,
  DamagedSessionError,
  type ErrorBlame,
  isAgentError,
  PausedSessionError,
  runError,
  toAgentError,
  UsageError,
} from './errors.js';
export { eventShapeProblem } from './event-shape.js';
export {
  type AgentEvent,
  EVENT_TYPES,
  type EventBase,
  type EventOf,
  type EventPayloads,
  type EventType,
  type PendingApproval,
  type RunStatus,
} from './events.js';
export {
  createFallbackProvider,
  DEFAULT_FALLBACK_COOLDOWN_MS,
  type FallbackMember,
  type FallbackOptions,
  isFallbackError,
} from './fallback-provider.js';
export { findCommand } from './find-command.js';
export { functionSchema } from './function-schema.js';
export { HTTP_HEADERS_SCHEMA } from './http-headers-schema.js';
export {
  controlTools,
  EXIT_LOOP_TOOL,
  RESERVED_TOOL_NAMES,
  reservedToolMessage,
  TRANSFER_TOOL,
  transferTargets,
} from './invocation/control-tools.js';
export { historyFor, isVisible } from './invocation/history.js';
export {
  type EscalationScope,
  InvocationContext,
  type InvocationLimits,
  type InvocationShared,
} from './invocation/invocation-context.js';
export { type HeldSession, type HoldOptions, holdSession } from './invocation/session-lease.js';
export { waitingParent } from './invocation/waiting-parent.js';
export { type JsonChunksOptions, type JsonSplit, jsonChunks } from './json-chunks.js';
export { type LimitBodyOptions, limitBody } from './limit-body.js';
export { createAgent, LlmAgent } from './llm-agent.js';
export { AgentRun } from './loop/agent-run.js';
export { type HiddenValues, StreamedHiding } from './loop/hidden-values.js';
export { type HistoryWindow, windowOf } from './loop/history-window.js';
export { forwardAbort, type LinkedSignal, linkedSignal } from './loop/linked-signal.js';
export { type SchemaCheck, type SchemaValidator, schemaValidator } from './loop/schema-validator.js';
export { CANCELLED_RESULT, ensureToolResultsComplete, findPairingProblem } from './loop/tool-pairing.js';
export { makeFolders } from './make-folders.js';
export { InMemoryMemory, type MemoryProvider } from './memory.js';
export type { MemoryDefinition, RetentionDefinition } from './memory-definition.js';
export {
  type ImageContent,
  type ImageMediaType,
  isImageContent,
  type Message,
  type Role,
  type ToolCall,
} from './messages.js';
export { compose } from './middleware/compose.js';
export { type LoggingOptions, logging } from './middleware/logging.js';
export { type RedactionOptions, redaction, redactor } from './middleware/redaction.js';
export { type RetryOptions, retry } from './middleware/retry.js';
export { type TimeoutOptions, timeout } from './middleware/timeout.js';
export {
  ACTION_TYPES,
  type ActionOf,
  type ActionPayloads,
  type ActionType,
  type AgentAction,
  type LoopEndReason,
  type Middleware,
  type Next,
  type ToolOutcome,
} from './middleware/types.js';
export {
  type ChatParams,
  collectStream,
  type FinishReason,
  type JsonSchema,
  type ModelProvider,
  type ModelResponse,
  type ModelRetry,
  type ModelSwitch,
  mapRequests,
  ownsRetries,
  type ResponseFormat,
  type ServedBy,
  type StreamEvent,
  type ToolDefinition,
} from './model.js';
export {
  apiKeyLookup,
  apiKeySource,
  type FallbackDefinition,
  type ModelDefinition,
  type ReasoningDefinition,
  withDefinitionDefaults,
} from './model-definition.js';
export {
  type NetworkCall,
  type NetworkProviderOptions,
  type NetworkProviderSpec,
  NO_STREAM_EVENTS,
  networkProvider,
  type SdkAttempt,
  type StreamAssembler,
  sdkAttempt,
} from './network-provider.js';
export { noAnswerError } from './no-answer-error.js';
export { AutoModel } from './offline/auto-model.js';
export { EchoModel } from './offline/echo-model.js';
export { OFFLINE_MODES, type OfflineMode, type OfflineOptions, offline } from './offline/offline-provider.js';
export {
  formatDifferences,
  ReplayModel,
  type ReplayModelOptions,
  type RequestDifference,
  requestDifferences,
} from './offline/replay-model.js';
export { sampleValue } from './offline/sample-value.js';
export {
  type RecordedRequest,
  ScriptModel,
  type ScriptModelOptions,
  type ScriptTurn,
} from './offline/script-model.js';
export { isPlainObject } from './plain-object.js';
export { childCallsProblem, promisedCallsProblem } from './promised-calls.js';
export { type FetchWatch, providerFetch, reportingProgress } from './provider-fetch.js';
export {
  type Cassette,
  type CassetteInteraction,
  emptyCassette,
  type NormalisedMessage,
  type NormalisedRequest,
  normaliseRequest,
  type RecordingOptions,
  recordingProvider,
} from './recording-provider.js';
export { type RetentionPolicy, type RetentionSpec, retentionPolicy } from './retention-policy.js';
export {
  type AttemptControl,
  classifyFailure,
  type FailureContext,
  type FailureInfo,
  isConnectionError,
  isRetryableStatus,
  type ProviderErrorFacts,
  type ProviderStreamOptions,
  parseRetryAfter,
  providerErrorFacts,
  providerFailure,
  providerStream,
  type RetryStreamOptions,
  retryAfterFromHeaders,
  retryStream,
} from './retry-policy.js';
export {
  type ModelCallObservation,
  type ObservedInvocation,
  type ObservedModelCall,
  type ObservedToolCall,
  observeRuns,
  type RunObserver,
  type ToolCallObservation,
} from './run-observer.js';
export {
  type InvocationCheckpoint,
  type InvocationOptions,
  type InvocationResult,
  type ResumeOptions,
  Runner,
  type RunnerOptions,
} from './runner.js';
export { sameJson } from './same-json.js';
export { SDK_LOG_TEXT_LIMIT, type SdkLogger, sdkLogger, stderrLogger } from './sdk-logger.js';
export {
  applyStateDelta,
  InMemorySessionStore,
  newSession,
  type Session,
  type SessionInit,
  type SessionStore,
  type SessionSummary,
  summarise,
} from './session.js';
export {
  assertSessionExport,
  exportSessionTree,
  flattenExport,
  InvalidExportError,
  SESSION_FORMAT_VERSION,
  type SessionExport,
  type StoredSession,
  sessionShapeProblem,
} from './session-export.js';
export { assertSessionId, InvalidSessionIdError, SESSION_ID_RULE } from './session-id.js';
export {
  holderOf,
  type LeaseAttempt,
  type LeaseHolder,
  type LeaseRequest,
  LeaseTable,
  leaseLapsed,
  newLease,
  SessionBusyError,
  type SessionLease,
  SessionLeaseLostError,
  type StoredLease,
} from './session-lease.js';
export {
  assertPageLimit,
  comesAfter,
  compareSessions,
  formatSessionCursor,
  listSessionPage,
  pageOf,
  parseSessionCursor,
  type SessionPage,
  type SessionPageQuery,
  type SessionPosition,
} from './session-page.js';
export { applyDelta } from './state-delta.js';
export { type SupervisedSpawnOptions, spawnSupervised } from './supervised-spawn.js';
export { backoffDelay, DEFAULT_RETRY_POLICY, type RetryPolicy, retryPolicy } from './timing/backoff.js';
export { type Deadline, type DeadlineOptions, deadline } from './timing/deadline.js';
export { sleep } from './timing/sleep.js';
export {
  type AnyTool,
  type ApprovalRequirement,
  defineTool,
  type Tool,
  type ToolContext,
  toolDefinition,
} from './tool.js';
export { parseToolArguments, toolCallFromText } from './tool-arguments.js';
export { BUILTIN_TOOLS, type BuiltinToolFactory, type BuiltinToolName } from './tools/builtin-tools.js';
export {
  approvalCheck,
  type ConfinedFile,
  type ConfinedOpenOptions,
  openConfinedFile,
  openConfinedFolder,
  openRegularFileIn,
  openTargetFolder,
  type TargetFolder,
} from './tools/confined-open.js';
export {
  confinedPath,
  confinedTarget,
  openRegularFile,
  type Roots,
  realRoot,
  refusalError,
} from './tools/confined-path.js';
export { type CurrentTime, type CurrentTimeOptions, currentTime } from './tools/current-time.js';
export { htmlText } from './tools/html-text.js';
export { type HttpGetOptions, type HttpGetResult, httpGet } from './tools/http-get.js';
export { isInside } from './tools/inside.js';
export { type ListDirOptions, listDir } from './tools/list-dir.js';
export { type OpenedFolder, openFolder, PathChangedError } from './tools/opened-folder.js';
export { foldsCase, type PathArguments, pathReadings } from './tools/path-readings.js';
export { isPrivatePath, PRIVATE_NAMES, type PrivacyOptions } from './tools/private-path.js';
export { type ReadFileOptions, readFile } from './tools/read-file.js';
export { replaceFile, replaceFileIn } from './tools/replace-file.js';
export {
  OutputLimitError,
  type ProcessOutput,
  type RunProcessOptions,
  runProcess,
} from './tools/run-process.js';
export { shownName } from './tools/shown-name.js';
export { urlReadings } from './tools/url-readings.js';
export { type UserInputArgs, type UserInputOptions, userInput } from './tools/user-input.js';
export type { McpServerDefinition, ToolsetDefinition } from './toolset-definition.js';
export {
  addUsage,
  costOf,
  emptyUsage,
  estimateTokens,
  type ModelPricing,
  type TokenUsage,
  type UsageStats,
  unreportedUsage,
  usageOfCall,
  usageOfFailedCall,
} from './usage.js';
export { sdkWarningsOnce, warnOnce } from './warn-once.js';
export { type WatchedUpdate, watchedUpdate } from './watched-update.js';
export { LoopAgent, type LoopAgentConfig } from './workflow/loop-agent.js';
export { ParallelAgent } from './workflow/parallel-agent.js';
export { SequentialAgent } from './workflow/sequential-agent.js';
export { WorkflowAgent, type WorkflowAgentConfig } from './workflow/workflow-agent.js';
