import { defineConfig } from 'vitest/config';

// Server tests run against a real database each (SQLite file, or a PostgreSQL schema when DATABASE_URL is postgres://).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    pool: 'forks',
    // A browser walk through the console takes 10–25 s on CI's two loaded cores; 60 s leaves it room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits up to 10 s (vitest's default is 1 s): a browser test reads a list after a click and a
    // fetch, which on CI's two loaded cores (both databases' suites side by side) can take longer than 1 s.
    expect: { poll: { timeout: 10_000 } },
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
