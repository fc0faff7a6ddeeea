import path from 'node:path';
import { globMatcher } from '../approval-rule.js';
import { isInside } from './inside.js';

/** Options of the confined-path functions about private files. */
export interface PrivacyOptions {
  /** Let private files ({@link PRIVATE_NAMES}) through. Default false. */
  allowPrivate?: boolean;
}

/**
 * The names the file tools keep away from, at any depth and in any case (on a case-insensitive
 * disk `.ENV` opens `.env`): a `*` stands for any run of characters, a `/` ends a folder (all
 * below it is private), and `a/b` is `b` inside `a`.
 */
export const PRIVATE_NAMES: readonly string[] = [
  // Secrets a project keeps for its programs, agentctl's own keys among them.
  '.env*',
  // Sessions (every conversation, tool results included) and caches, which a tool could forge.
  '.agentctl/',
  // A remote's URL in `config` may hold a token; hooks run on the next git command.
  '.git/',
  '.git-credentials',
  // Logins and keys of tools a developer uses.
  '.ssh/',
  '.gnupg/',
  '.aws/',
  '.azure/',
  '.kube/',
  '.docker/config.json',
  '.dockercfg',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.htpasswd',
  // Private keys and certificate stores.
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
];

function nameTest(pattern: string): (name: string) => boolean {
  const match = globMatcher(pattern);
  return (name) => match(name.toLowerCase());
}

// Each pattern as the segments it names, the last one a folder when written with a trailing `/`.
const RULES = PRIVATE_NAMES.map((pattern) => pattern.replace(/\/$/, '').split('/').map(nameTest));

/** Whether a relative path's segments name a private file or folder, or lie below one. */
function hasPrivateSegments(segments: readonly string[]): boolean {
  return segments.some((_, at) =>
    RULES.some((rule) => rule.every((test, i) => at + i < segments.length && test(segments[at + i]))),
  );
}

/**
 * Whether `candidate` (absolute) is a private path seen from the roots: one of
 * {@link PRIVATE_NAMES}, or anything below one, in every root that holds it. A root the user
 * declared inside such a folder is their choice, so what is below that root is not private.
 */
export function isPrivatePath(bases: readonly string[], candidate: string): boolean {
  const holders = bases.filter((base) => isInside(base, candidate));
  return (
    holders.length > 0 &&
    holders.every((base) => hasPrivateSegments(path.relative(base, candidate).split(path.sep)))
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
    `path "${requested}" is private: secrets (.env files, .git, credentials and private keys) and the .agentctl folder (sessions) are kept from the file tools unless the agent's configuration sets allow_private: true`,
  );
}
