import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Real parts in tests (model, SQLite, sockets) are slow on 2 cores: generous timeouts,
// and test files run one at a time so model inferences don't fight for the cores. The run
// refuses to start on bundles older than their sources (test/helpers/fresh-build.ts).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['./test/helpers/fresh-build.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // A condition waited on (expect.poll) may take a while on a loaded 2-core machine: a page's
    // push, a process's answer. Waiting longer changes no result, only when a failure is told.
    expect: { poll: { timeout: 15_000 } },
    fileParallelism: false,
    // The machine cache (optimised models, measured session settings) of the whole run, inside
    // the project rather than the user's own (~/.cache/clipdesk); kept between runs like one.
    env: { CLIPDESK_CACHE_DIR: fileURLToPath(new URL('./node_modules/.cache/clipdesk-machine', import.meta.url)) },
    reporters: ['default', './test/helpers/summary-reporter.ts']
  }
})
