/** The resolvers of the promise {@link pendingPromise} made last: read them right after the call. */
export const lastResolvers: {
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
} = {
  resolve: () => undefined,
  reject: () => undefined,
};

function capture(resolve: (value: never) => void, reject: (error: unknown) => void): void {
  lastResolvers.resolve = resolve;
  lastResolvers.reject = reject;
}

/**
 * A new promise whose resolvers are left in {@link lastResolvers}: one shared executor instead of a
 * closure per promise, for waits made thousands of times a second under load.
 */
export function pendingPromise<T>(): Promise<T> {
  return new Promise<T>(capture);
}
