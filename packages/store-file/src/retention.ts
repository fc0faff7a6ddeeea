import type { RetentionPolicy, SessionSummary } from '@agentctl/core';

export type { RetentionPolicy };

/**
 * The top-level sessions a policy removes, least recently updated first. Child sessions are not
 * counted: they belong to their parent and are deleted with it. `keep` (the new session) is spared.
 */
export function sessionsToRemove(
  sessions: Iterable<SessionSummary>,
  policy: RetentionPolicy,
  now: number,
  keep?: string,
): string[] {
  const roots = [...sessions]
    .filter((s) => s.parentId === undefined && s.id !== keep)
    .sort((a, b) => a.updatedAt - b.updatedAt || a.id.localeCompare(b.id));
  const remove = new Set<string>();
  if (policy.maxAgeMs !== undefined) {
    for (const s of roots) if (now - s.updatedAt > policy.maxAgeMs) remove.add(s.id);
  }
  if (policy.maxSessions !== undefined) {
    // The kept session counts toward the limit.
    const allowed = Math.max(0, policy.maxSessions - (keep === undefined ? 0 : 1));
    const survivors = roots.filter((s) => !remove.has(s.id));
    for (const s of survivors.slice(0, Math.max(0, survivors.length - allowed))) remove.add(s.id);
  }
  return [...remove];
}
