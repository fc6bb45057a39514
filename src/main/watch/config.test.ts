import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/helpers/engine'
import { EngineError } from '../engine/errors'
import { openDataFolder, type OfflineDataFolder } from '../engine/data-folder'
import { WatchFolders } from './config'
import { WatchStore } from './store'

let dir: string
let folder: OfflineDataFolder
let folders: WatchFolders

beforeEach(() => {
  dir = tempDir()
  mkdirSync(join(dir, 'in'))
  folder = openDataFolder(dir)
  folders = new WatchFolders(new WatchStore(folder.tables))
})
afterEach(() => {
  folder.close()
  rmSync(dir, { recursive: true, force: true })
})

function refusal(fn: () => unknown): { code: string; details: { field: string; issue: string }[] } {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError)
    return { code: (err as EngineError).code, details: (err as EngineError).details ?? [] }
  }
  throw new Error('expected a refusal')
}

describe('WatchFolders', () => {
  it('adds a folder with the documented defaults', () => {
    const f = folders.add({ path: join(dir, 'in') })
    expect(f).toMatchObject({
      recursive: true,
      request: { mode: 'clipping', params: null, output_format: 'png' },
      outputDir: null,
      nameTemplate: '{name}.{variation}.{ext}',
      originals: 'keep',
      paused: false
    })
    expect(f.id).toMatch(/^wf_[0-9a-f]{12}$/)
  })

  it('names every problem of a bad request, field by field', () => {
    const r = refusal(() => folders.add({ path: join(dir, 'in'), mode: 'nope' as never, name_template: '{nom}', extra: 1 } as never))
    expect(r.code).toBe('validation_failed')
    const fields = r.details.map((d) => d.field)
    expect(fields).toEqual(expect.arrayContaining(['mode', 'name_template']))
  })

  it('refuses missing, relative and duplicate folders', () => {
    expect(refusal(() => folders.add({ path: 'relative/dir' })).details[0]!.issue).toContain('absolute')
    expect(refusal(() => folders.add({ path: join(dir, 'missing') })).details[0]!.issue).toContain('no such folder')
    writeFileSync(join(dir, 'file'), 'x')
    expect(refusal(() => folders.add({ path: join(dir, 'file') })).details[0]!.issue).toContain('not a folder')
    folders.add({ path: join(dir, 'in') })
    expect(refusal(() => folders.add({ path: join(dir, 'in', '.') })).details[0]!.issue).toContain('already watched')
  })

  it('refuses an output folder that is the watched folder, a parent of it, or its done folder', () => {
    for (const out of [join(dir, 'in'), dir, join(dir, 'in', 'clipdesk-done')]) {
      expect(refusal(() => folders.add({ path: join(dir, 'in'), output_dir: out })).details[0]!.field).toBe('output_dir')
    }
    expect(folders.add({ path: join(dir, 'in'), output_dir: join(dir, 'out') }).outputDir).toBe(join(dir, 'out'))
  })

  it('checks the job request as an upload would (mode params needs params)', () => {
    const r = refusal(() => folders.add({ path: join(dir, 'in'), mode: 'params' }))
    expect(r.details).toContainEqual({ field: 'params', issue: 'required when mode is params' })
  })

  it('updates settings and bumps the revision; finds folders by id or path', () => {
    const f = folders.add({ path: join(dir, 'in') })
    const g = folders.update({ id: f.id, output_format: 'webp', name_template: '{date}/{name}.{ext}', recursive: false })
    expect(g).toMatchObject({ request: { output_format: 'webp' }, nameTemplate: '{date}/{name}.{ext}', recursive: false })
    expect(g.revision).toBe(f.revision + 1)
    expect(folders.get(join(dir, 'in')).id).toBe(f.id)
    expect(refusal(() => folders.get('wf_nope')).code).toBe('not_found')
    expect(folders.setPaused(f.id, true).paused).toBe(true)
    folders.remove(f.id)
    expect(refusal(() => folders.get(f.id)).code).toBe('not_found')
  })
})
