/** Resolves at the first SIGTERM or SIGINT: how a long-running command (serve, worker) waits. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/**
 * Aborted at the next SIGTERM or SIGINT (the second, while serve or worker drains): the grace ends
 * at once. It listens for one signal only; a third ends the process as Node does by default.
 */
export function nextStop(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => {
    dispose();
    controller.abort();
  };
  const dispose = () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return { signal: controller.signal, dispose };
}
