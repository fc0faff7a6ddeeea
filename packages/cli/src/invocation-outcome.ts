/**
 * What a run's invocation ended with: its result, or the error it failed with. For runs whose
 * events are taken through `onEvent`: the run itself is never read, so its own rejection is
 * handled here instead of surfacing as an unhandled one.
 */
export function invocationOutcome<T>(
  run: PromiseLike<unknown> & { invocation: Promise<T> },
): Promise<T | unknown> {
  run.then(
    () => undefined,
    () => undefined,
  );
  return run.invocation.catch((error: unknown) => error);
}
