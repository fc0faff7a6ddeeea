import { configAssets } from './assets.js';

/** Whether a path (relative, with `/`) matches. */
export type Matcher = (path: string) => boolean;

/** picomatch, as this package depends on it (it ships no types of its own: these are the calls used). */
export const picomatch = configAssets().require('picomatch') as ((
  globs: string[],
  options?: { dot?: boolean },
) => Matcher) & { scan(glob: string): { base: string } };
