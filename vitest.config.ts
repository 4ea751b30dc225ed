import { defineConfig } from 'vitest/config';

// Server tests run against a real database each (SQLite file, or a PostgreSQL schema when DATABASE_URL is postgres://).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
