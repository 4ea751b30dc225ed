/** Time source injected everywhere so trials, delayed jobs and purges are testable without sleeping. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
