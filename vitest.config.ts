import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/host/ needs the real DSH host installed: `npm run test:host` (vitest.host.config.ts).
    exclude: [...configDefaults.exclude, 'test/host/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
