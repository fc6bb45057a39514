/**
 * One engine per data folder, across real processes: a second `clipdesk process` or `serve` on
 * a folder that a running `clipdesk serve` uses is refused with the reason, and the folder is
 * free again once that serve is gone, even killed with SIGKILL.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'

let root: string
beforeAll(async () => {
  root = tempDir('clipdesk-lock-cli-')
  mkdirSync(join(root, 'in'))
  writeFileSync(join(root, 'in', 'a.png'), await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).png().toBuffer())
})

describe('one engine per data folder', () => {
  it('refuses process and serve while serve runs on the folder; frees it when serve is killed', async () => {
    const dataDir = join(root, 'data')
    const serve = await startServe(dataDir, ['--paused'])
    // `--paused` takes no work, so it holds no lock: a paused serve and process may share a folder.
    const paused = runCli(['process', join(root, 'in'), '--out', join(root, 'out-paused'), '--data-dir', dataDir, '--params', 'alpha=keep'])
    serve.child.kill('SIGKILL')
    await serve.exited
    expect(paused.code, paused.stderr).toBe(0)

    const running = await startServe(dataDir)
    try {
      const again = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--data-dir', dataDir])
      expect(again.code).toBe(1)
      expect(again.stderr).toContain(`clipdesk: another Clipdesk process (pid ${running.child.pid}, running since `)
      expect(again.stderr).toContain(`is using the data folder ${dataDir}; stop it first`)
      const second = await startServe(dataDir).then(
        () => 'listening',
        (err: Error) => err.message
      )
      expect(second).toMatch(/^serve exited \(1\) before listening/)
      expect(second).toContain(`another Clipdesk process (pid ${running.child.pid}`)
    } finally {
      running.child.kill('SIGKILL')
      await running.exited
    }
    // Killed: its lock is stale, and the folder works again.
    const after = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--data-dir', dataDir, '--params', 'alpha=keep'])
    expect(after.code, after.stderr).toBe(0)
    expect(after.stdout).toContain('Done: 1 file.')
  })
})
