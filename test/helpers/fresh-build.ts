/**
 * Vitest global setup: the tests of the CLI, the server and the app run the built bundles
 * (`out/`), so a bundle older than its sources would test yesterday's code and pass or fail
 * for the wrong reason. The run stops at once, saying so, when a source file is newer than the
 * bundle built from it. `npm test` builds first.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '../..')

/** Newest modification time of the files under `dirs` (test files excluded: they are not bundled). */
function newestSource(dirs: string[]): { path: string; mtimeMs: number } {
  let newest = { path: '', mtimeMs: 0 }
  for (const dir of dirs) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || /\.test\.tsx?$/.test(entry.name)) continue
      const path = join(entry.parentPath, entry.name)
      const { mtimeMs } = statSync(path)
      if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs }
    }
  }
  return newest
}

function builtAt(file: string): number {
  try {
    return statSync(join(ROOT, file)).mtimeMs
  } catch {
    return 0
  }
}

export default function checkFreshBuild(): void {
  const bundles: Array<{ sources: string[]; built: string }> = [
    { sources: ['src/main', 'src/shared', 'src/preload'], built: 'out/main/cli.js' },
    { sources: ['src/renderer', 'src/shared'], built: 'out/renderer/index.html' }
  ]
  for (const { sources, built } of bundles) {
    const at = builtAt(built)
    const newest = newestSource(sources)
    if (at === 0) throw new Error(`${built} is missing: run npm run build first (npm test does)`)
    if (newest.mtimeMs > at) {
      throw new Error(
        `${built} is older than ${newest.path.slice(ROOT.length + 1)}: run npm run build first (npm test does), or the tests would run stale bundles`
      )
    }
  }
}
