import path from 'node:path';
import { isInside } from './inside.js';

/** Options of the confined-path functions about private files. */
export interface PrivacyOptions {
  /** Let `.env*` files and the `.agentctl` folder through. Default false. */
  allowPrivate?: boolean;
}

// `.env`, `.env.local`, `.envrc`: where a project keeps its secrets. `.agentctl`: its sessions
// (every conversation, tool results included) and caches, which a tool could also forge. Any case:
// on a case-insensitive disk `.ENV` opens `.env`.
function isPrivateName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === '.agentctl' || lower.startsWith('.env');
}

/**
 * Whether `candidate` (absolute) is a private path seen from the roots: a `.env*` file or the
 * `.agentctl` folder, or anything below one, in every root that holds it. A root the user
 * declared inside such a folder is their choice, so what is below that root is not private.
 */
export function isPrivatePath(bases: readonly string[], candidate: string): boolean {
  const holders = bases.filter((base) => isInside(base, candidate));
  return (
    holders.length > 0 &&
    holders.every((base) => path.relative(base, candidate).split(path.sep).some(isPrivateName))
  );
}

/** Throws the error the model reads when a path is private and the tool was not allowed it. */
export function refusePrivate(
  bases: readonly string[],
  requested: string,
  candidates: readonly string[],
  options: PrivacyOptions | undefined,
): void {
  if (options?.allowPrivate) return;
  if (!candidates.some((candidate) => isPrivatePath(bases, candidate))) return;
  throw new Error(
    `path "${requested}" is private: .env files (secrets) and the .agentctl folder (sessions) are kept from the file tools unless the agent's configuration sets allow_private: true`,
  );
}
