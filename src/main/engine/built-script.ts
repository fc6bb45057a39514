/**
 * Where a separately built entry of electron-vite's main build (`out/main/<name>`) is: the
 * decode sandbox's process and the refine thread. From the bundle it sits next to (or one level
 * above) the chunk holding this code; from the sources (tests) it is the project's build
 * output, which `npm test` makes first. Null when it is not built.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export function findBuiltScript(name: string): string | null {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 6; up++) {
    for (const candidate of [join(dir, name), join(dir, 'out', 'main', name)]) {
      if (existsSync(candidate)) return candidate
    }
    dir = dirname(dir)
  }
  return null
}
