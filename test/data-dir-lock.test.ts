/**
 * One engine per data folder, across real processes: a second `clipdesk process` or `serve` on
 * a folder that a running `clipdesk serve` uses is refused with the reason, and the folder is
 * free again the moment that serve is gone, even killed with SIGKILL and not yet reaped. A lock
 * file naming a live process that holds no lock (a crash's, an id reused) refuses nobody.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'

let root: string
beforeAll(async () => {
  root = tempDir('clipdesk-lock-cli-')
  mkdirSync(join(root, 'in'))
  writeFileSync(
    join(root, 'in', 'a.png'),
    await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } })
      .png()
      .toBuffer()
  )
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
    }
    // Killed, and started again at once: `runCli` blocks this process, so the killed serve is
    // not reaped yet (a zombie, whose id still answers `kill(pid, 0)`). The kernel dropped its lock.
    const after = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--data-dir', dataDir, '--params', 'alpha=keep'])
    expect(after.code, after.stderr).toBe(0)
    expect(after.stdout).toContain('Done: 1 file.')
    await running.exited
  })

  it('is not refused by a lock file that names a live process holding no lock', () => {
    const dataDir = join(root, 'data-stale')
    mkdirSync(dataDir)
    // This test runner is live and foreign to the command; it holds no lock on this folder.
    writeFileSync(
      join(dataDir, 'engine.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), token: 't', since: '2026-01-01T00:00:00.000Z', role: 'serve' })
    )
    const run = runCli(['process', join(root, 'in'), '--out', join(root, 'out-stale'), '--data-dir', dataDir, '--params', 'alpha=keep'])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Done: 1 file.')
  })
})
