import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'

// The CLI and MCP server serve ~/.agent/memory as the personal store by default. In the suite
// they serve the project store alone (an empty MEMORY_AGENT_USER_ROOT), so test files running in
// parallel share no personal store; a test of the default sets its own HOME. The HOME here keeps
// anything else off the real home folder too.
const home = mkdtempSync(path.join(tmpdir(), 'memory-agent-test-home-'))

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/host/ needs the real DSH host installed: `npm run test:host` (vitest.host.config.ts).
    exclude: [...configDefaults.exclude, 'test/host/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The read guard: a file fails when its tests or their children read outside the repository.
    setupFiles: ['test/read-guard/setup.ts'],
    env: { HOME: home, USERPROFILE: home, MEMORY_AGENT_USER_ROOT: '' },
  },
})
