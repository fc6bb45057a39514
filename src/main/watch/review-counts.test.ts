import { join } from 'node:path'
import { rmSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/helpers/engine'
import { LIKELY_WRONG, WORTH_A_LOOK } from '../../shared/review'
import { openDataFolder, type OfflineDataFolder } from '../engine/data-folder'
import { WatchStore } from './store'

let dir: string
let folder: OfflineDataFolder
let store: WatchStore

beforeEach(() => {
  dir = tempDir()
  folder = openDataFolder(dir)
  store = new WatchStore(folder.tables)
})
afterEach(() => {
  folder.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("a watched folder's files to check (real SQLite)", () => {
  it('counts each level, and a touched-up file leaves "to check" and its list; a new version of it starts again', () => {
    const folder = store.insertFolder({
      id: 'f1',
      path: join(dir, 'in'),
      recursive: true,
      request: { mode: 'clipping', params: null, output_format: 'png' },
      outputDir: null,
      nameTemplate: '{name}.cut-out.{ext}',
      originals: 'keep',
      paused: false
    })
    const done = (rel: string, uncertainty: number) => {
      const f = store.putFile(folder.id, rel, { state: 'done' })
      store.patchFile(f.id, null, { uncertainty })
      return f.id
    }
    done('sure.png', 0.05)
    done('look.png', WORTH_A_LOOK)
    const wrong = done('wrong.png', LIKELY_WRONG)
    expect(store.counts(folder.id)).toMatchObject({ done: 3, to_check: 2, likely_wrong: 1, touched_up: 0 })
    expect(store.toCheckFiles(folder.id).map((f) => f.relPath)).toEqual(['wrong.png', 'look.png'])

    // Touched up and saved, as the touch-up records it.
    store.patchFile(wrong, null, { touchUps: 1, touchedUpAt: Date.now() })
    expect(store.counts(folder.id)).toMatchObject({ done: 3, to_check: 1, likely_wrong: 0, touched_up: 1 })
    expect(store.toCheckFiles(folder.id).map((f) => f.relPath)).toEqual(['look.png'])

    // A new version of the file is made again: no touch-up, and its own score decides.
    const again = store.putFile(folder.id, 'wrong.png', { state: 'done' })
    store.patchFile(again.id, null, { uncertainty: 0.97 })
    expect(store.counts(folder.id)).toMatchObject({ done: 3, to_check: 2, likely_wrong: 1, touched_up: 0 })
  })
})
