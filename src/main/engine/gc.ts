/**
 * A full garbage collection on demand, without starting Node with `--expose-gc`: the flag can be
 * set at run time, and a fresh context then exposes `gc`. Used where freeing large ArrayBuffers
 * promptly lowers the process's peak memory (`mask.ts`, before a model run). A no-op where the
 * engine cannot get it.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let gc: (() => void) | null | undefined

export function collectGarbage(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      gc = runInNewContext('gc') as () => void
    } catch {
      gc = null
    }
  }
  gc?.()
}
