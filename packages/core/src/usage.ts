/** Token counts and cost, for one model call, one run or an agent's whole life. */
export interface UsageStats {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /** Every bucket added up: input + output + cache read + cache write. */
  totalTokens: number;
  /** Model calls made, failed ones included. */
  iterations: number;
  /**
   * Model calls whose provider reported no token usage: their tokens above are zero or agentctl's
   * estimate, so a token limit cannot be checked against them. Absent when every call reported.
   */
  unreportedCalls?: number;
  /** Of `iterations`, the calls that failed (a provider error, a fallback leaving a model); absent when none. */
  failedCalls?: number;
  /** Estimated cost in US dollars, present when the model declares its prices. */
  estimatedCost?: number;
}

/** Token counts reported by a provider for one call; missing buckets count as zero. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** True when the provider reported no usage for the call: the counts are zero or an estimate. */
  unreported?: boolean;
}

/** The usage of a call whose provider reported none: every count 0, marked unreported (a new object each time). */
export function unreportedUsage(): TokenUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unreported: true };
}

/** Prices in US dollars per million tokens of each bucket. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A zeroed {@link UsageStats}. */
export function emptyUsage(): UsageStats {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    totalTokens: 0,
    iterations: 0,
  };
}

/** The cost of one call's tokens at the given prices. */
export function costOf(tokens: TokenUsage, pricing: ModelPricing): number {
  const perToken = 1 / 1_000_000;
  return (
    tokens.inputTokens * pricing.input * perToken +
    tokens.outputTokens * pricing.output * perToken +
    (tokens.cacheReadTokens ?? 0) * (pricing.cacheRead ?? pricing.input) * perToken +
    (tokens.cacheWriteTokens ?? 0) * (pricing.cacheWrite ?? pricing.input) * perToken
  );
}

/** Turns one call's token counts into {@link UsageStats}, priced when pricing is known. */
export function usageOfCall(tokens: TokenUsage, pricing?: ModelPricing): UsageStats {
  const cacheRead = tokens.cacheReadTokens ?? 0;
  const cacheWrite = tokens.cacheWriteTokens ?? 0;
  const usage: UsageStats = {
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    totalTokens: tokens.inputTokens + tokens.outputTokens + cacheRead + cacheWrite,
    iterations: 1,
  };
  if (tokens.unreported === true) usage.unreportedCalls = 1;
  if (pricing) usage.estimatedCost = costOf(tokens, pricing);
  return usage;
}

/** The usage of one model call that failed: tokens the provider reported before failing, if any. */
export function usageOfFailedCall(tokens: TokenUsage | undefined, pricing?: ModelPricing): UsageStats {
  const usage = usageOfCall(tokens ?? { inputTokens: 0, outputTokens: 0 }, tokens && pricing);
  usage.failedCalls = 1;
  return usage;
}

/** Adds `delta` into `into` in place and returns `into`. */
export function addUsage(into: UsageStats, delta: UsageStats): UsageStats {
  into.inputTokens += delta.inputTokens;
  into.outputTokens += delta.outputTokens;
  into.cacheReadTokens += delta.cacheReadTokens;
  into.cacheWriteTokens += delta.cacheWriteTokens;
  into.totalTokens += delta.totalTokens;
  into.iterations += delta.iterations;
  if (delta.unreportedCalls) into.unreportedCalls = (into.unreportedCalls ?? 0) + delta.unreportedCalls;
  if (delta.failedCalls) into.failedCalls = (into.failedCalls ?? 0) + delta.failedCalls;
  if (delta.estimatedCost !== undefined) into.estimatedCost = (into.estimatedCost ?? 0) + delta.estimatedCost;
  return into;
}

/** A rough token count for text, for providers that report none (about four characters a token). */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}
