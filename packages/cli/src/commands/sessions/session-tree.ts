import type { FileSessionSummary } from '@agentctl/store-file';
import { printable } from '../../printable.js';

/** The child sessions of `rootId` as an indented tree, one line per session. */
export function formatSessionTree(rootId: string, sessions: readonly FileSessionSummary[]): string[] {
  const children = new Map<string, FileSessionSummary[]>();
  for (const s of sessions) {
    if (s.parentId === undefined) continue;
    children.set(s.parentId, [...(children.get(s.parentId) ?? []), s]);
  }
  const lines: string[] = [];
  const seen = new Set<string>([rootId]);
  const visit = (id: string, prefix: string) => {
    const kids = (children.get(id) ?? []).sort((a, b) => a.createdAt - b.createdAt);
    kids.forEach((kid, i) => {
      if (seen.has(kid.id)) return; // a hand-edited file could make a cycle
      seen.add(kid.id);
      const last = i === kids.length - 1;
      const via = kid.parentCallId ? ` via ${printable(kid.parentCallId)}` : '';
      const what = kid.corrupt
        ? 'corrupt'
        : `${printable(kid.agent ?? '-')}, ${kid.eventCount} events${kid.paused ? ', paused' : ''}`;
      lines.push(`${prefix}${last ? '└─' : '├─'} ${kid.id} (${what})${via}`);
      visit(kid.id, `${prefix}${last ? '   ' : '│  '}`);
    });
  };
  visit(rootId, '');
  return lines;
}
