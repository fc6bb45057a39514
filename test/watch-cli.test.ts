/**
 * `clipdesk watch …` as a user runs it (the built bin), and `clipdesk serve` taking up a
 * folder added while it runs: the change reaches it through the database.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import type { WatchFolderView } from '../src/shared/watch'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { waitFor } from './helpers/watch'

const dirs: string[] = []
function dir(): string {
  const d = tempDir('clipdesk-watch-cli-')
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function list(data: string): WatchFolderView[] {
  const r = runCli(['watch', 'list', '--json', '--data-dir', data])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as WatchFolderView[]
}

describe('clipdesk watch', () => {
  it('adds, lists, pauses, resumes and removes folders; refuses bad settings with the field named', () => {
    const data = dir()
    const inbox = dir()
    const out = dir()
    const added = runCli([
      'watch',
      'add',
      inbox,
      '--out',
      out,
      '--format',
      'webp',
      '--no-recursive',
      '--move-originals',
      '--template',
      '{date}/{name}.{ext}',
      '--data-dir',
      data
    ])
    expect(added.code, added.stderr).toBe(0)
    const id = /Added (wf_[0-9a-f]+)/.exec(added.stdout)![1]!
    expect(added.stdout).toContain('taken up when `clipdesk serve` or the app starts')
    const [f] = list(data)
    expect(f).toMatchObject({
      id,
      recursive: false,
      originals: 'move',
      output_dir: out,
      name_template: '{date}/{name}.{ext}',
      request: { mode: 'clipping', output_format: 'webp', params: null },
      state: 'stopped'
    })
    const human = runCli(['watch', 'list', '--data-dir', data])
    expect(human.stdout).toContain(`${id}  stopped`)
    expect(human.stdout).toContain('waiting 0 · processing 0 · done 0 · skipped 0 · failed 0')

    expect(runCli(['watch', 'pause', inbox, '--data-dir', data]).stdout).toContain(`Paused ${id}`)
    expect(list(data)[0]!.state).toBe('paused')
    expect(runCli(['watch', 'resume', id, '--data-dir', data]).stdout).toContain(`Resumed ${id}`)

    const dup = runCli(['watch', 'add', inbox, '--data-dir', data])
    expect(dup.code).toBe(2)
    expect(dup.stderr).toContain('path: this folder is already watched')
    const bad = runCli(['watch', 'add', dir(), '--template', '{nom}.{ext}', '--format', 'bmp', '--data-dir', data])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('name_template: unknown token {nom}')
    expect(bad.stderr).toContain('output_format')
    const missing = runCli(['watch', 'remove', 'wf_0123456789ab', '--data-dir', data])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('No watched folder')

    expect(runCli(['watch', 'remove', id, '--data-dir', data]).code).toBe(0)
    expect(list(data)).toEqual([])
  })
})

describe('clipdesk serve with watched folders', () => {
  it('takes up a folder added while it runs, writes the cutout, and follows pause from another process', async () => {
    const data = dir()
    const inbox = dir()
    const serve = await startServe(data)
    try {
      const added = runCli(['watch', 'add', inbox, '--data-dir', data])
      expect(added.code, added.stderr).toBe(0)
      await waitFor('serve to take the folder up', () => list(data)[0]?.state === 'active')
      expect(list(data)[0]!.state_message).toContain(`watched by process ${serve.child.pid}`)
      mkdirSync(join(inbox, 'day1'))
      writeFileSync(join(inbox, 'day1', 'ball.png'), await scenePng())
      const out = join(inbox, 'clipdesk-out', 'day1', 'ball.cut-out.png')
      await waitFor('the cutout', () => existsSync(out) && list(data)[0]!.counts.done === 1)
      expect((await sharp(out).metadata()).channels).toBe(4)
      expect(list(data)[0]!.recent[0]).toMatchObject({ kind: 'done', rel_path: 'day1/ball.png' })

      expect(runCli(['watch', 'pause', inbox, '--data-dir', data]).code).toBe(0)
      expect(list(data)[0]!.state).toBe('paused')
    } finally {
      serve.child.kill('SIGTERM')
      expect(await serve.exited).toBe(0)
    }
    // A clean stop gives the lease back: nothing watches now.
    expect(runCli(['watch', 'resume', inbox, '--data-dir', data]).code).toBe(0)
    expect(list(data)[0]!.state).toBe('stopped')
  })
})
