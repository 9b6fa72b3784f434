import { defineConfig } from 'vitest/config'

// The real-host tests (test/host/): the packed plugin inside the real DSH host on Node 22.
// Run with `npm run test:host`, which builds and installs the host first; `npm test` leaves them out.
export default defineConfig({
  test: {
    include: ['test/host/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
