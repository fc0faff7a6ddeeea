import { type Stats, statSync } from 'node:fs';
import { blockingAncestor } from '@agentctl/config';

/**
 * Why no file can be written at `path` (absolute): a folder there, or a file where one of its
 * folders goes; undefined when nothing stands in the way. Asked before the work, so a `--record`
 * or `--write` that could never succeed is bad usage rather than a failure at the end.
 */
export function unwritableTarget(path: string): string | undefined {
  let info: Stats | undefined;
  try {
    info = statSync(path);
  } catch {
    info = undefined; // missing, or under a file: the ancestors say which
  }
  if (info?.isDirectory()) return `${path} is a folder`;
  const blocker = info ? undefined : blockingAncestor(path);
  return blocker && `${blocker} is not a folder`;
}
