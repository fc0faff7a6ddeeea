import { type Env, interpolate, MissingEnvError } from '../env/interpolate.js';

/** A model reference as compile reads it, and how a problem with it is told. */
export interface ModelRef {
  /** The reference with `${VAR}` resolved, as compile resolves it. */
  ref: string;
  /** A problem's message in the author's terms: it names the reference as written, never its value. */
  told(message: string): string;
}

/**
 * An agent's `model` (or the project's `defaults.model`) as compile resolves it with this
 * environment, so validate checks the reference run will use (`${MODEL:-offline/echo}` with
 * MODEL=bogus/x is refused by both). Undefined when there is none, or when a `${VAR:?message}`
 * is unset (env-required's). A message names the reference as written, not its value.
 */
export function modelRef(written: string | undefined, env: Env): ModelRef | undefined {
  if (written === undefined) return undefined;
  if (!written.includes('$')) return { ref: written, told: (message) => message };
  let ref: string;
  try {
    ref = interpolate(written, env);
  } catch (error) {
    if (error instanceof MissingEnvError) return undefined;
    throw error;
  }
  if (ref === written) return { ref, told: (message) => message };
  return {
    ref,
    told: (message) =>
      `${message.split(`\`${ref}\``).join(`\`${written}\``).split(ref).join('***')} (as \`${written}\` resolves with this environment)`,
  };
}
