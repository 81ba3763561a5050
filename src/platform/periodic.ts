export interface PeriodicTask {
  /** Stops the timer; resolves once the run in progress, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every intervalMs, one run at a time (a tick while one runs is skipped), until
 * stopped: the background workers' loop. A run that fails is handed to onError; the next tick
 * runs again. The timer does not keep the process alive.
 */
export function runEvery(intervalMs: number, run: () => Promise<unknown>, onError: (error: unknown) => void): PeriodicTask {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = run()
      .then(() => undefined)
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
