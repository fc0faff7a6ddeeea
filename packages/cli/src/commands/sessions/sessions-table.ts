import type { FileSessionSummary } from '@agentctl/store-file';
import { printable } from '../../printable.js';

/**
 * The `sessions list` table: top-level sessions newest first (or, with `keepOrder`, in the order
 * given: a page's), each followed by its child sessions indented.
 */
export function formatSessionsTable(
  sessions: readonly FileSessionSummary[],
  { keepOrder = false }: { keepOrder?: boolean } = {},
): string {
  const byParent = new Map<string | undefined, FileSessionSummary[]>();
  const ids = new Set(sessions.map((s) => s.id));
  for (const s of sessions) {
    // A child whose parent is gone is shown at the top level rather than hidden.
    const parent = s.parentId !== undefined && ids.has(s.parentId) ? s.parentId : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), s]);
  }
  const rows: string[][] = [['ID', 'AGENT', 'EVENTS', 'PAUSED', 'UPDATED']];
  const visit = (parent: string | undefined, depth: number) => {
    const children = [...(byParent.get(parent) ?? [])];
    if (!keepOrder || depth > 0)
      children.sort((a, b) => (depth === 0 ? b.updatedAt - a.updatedAt : a.createdAt - b.createdAt));
    for (const s of children) {
      const id = `${'  '.repeat(depth)}${depth > 0 ? '└ ' : ''}${s.id}`;
      rows.push(
        s.corrupt
          ? [id, '-', 'corrupt', '-', '-']
          : [
              id,
              printable(s.agent ?? '-'),
              String(s.eventCount),
              s.paused ? 'yes' : 'no',
              formatTime(s.updatedAt),
            ],
      );
      visit(s.id, depth + 1);
    }
  };
  visit(undefined, 0);
  return alignColumns(rows);
}

/** Rows of cells as text columns, each as wide as its widest cell. */
export function alignColumns(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => row[col]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, col) => cell.padEnd(widths[col]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `YYYY-MM-DD HH:MM:SS` in UTC: stable across machines and sortable. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}
