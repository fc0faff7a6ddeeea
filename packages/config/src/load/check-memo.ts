/**
 * Checks made before, kept between runs by the project's cache, each by a key that names what was
 * checked (a digest of its text): undefined when that was never checked.
 */
export interface CheckMemo<T> {
  get(key: string): T | undefined;
  set(key: string, found: T): void;
}
