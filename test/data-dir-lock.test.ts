/**
 * One engine per data folder, across real processes: a second `serve` (paused or not) on a
 * folder that a running `clipdesk serve` uses is refused with the reason (`clipdesk process`
 * works through it instead: cli-beside-server.test.ts), and the folder is free again the moment
 * that serve is gone, even killed with SIGKILL and not yet reaped. A lock file naming a live
 * process that holds no lock (a crash's, an id reused) refuses nobody.
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
  it('refuses a second serve while serve runs on the folder, paused or not; frees it when serve is killed', async () => {
    const dataDir = join(root, 'data')
    // A paused serve still writes (keys, uploads, batches): it holds the folder like any server.
    const paused = await startServe(dataDir, ['--paused'])
    try {
      const second = await startServe(dataDir).then(
        () => 'listening',
        (err: Error) => err.message
      )
      expect(second).toMatch(/^serve exited \(1\) before listening/)
      expect(second).toContain(`another Clipdesk process (pid ${paused.child.pid}`)
    } finally {
      paused.child.kill('SIGKILL')
    }
    await paused.exited

    const running = await startServe(dataDir)
    try {
      const second = await startServe(dataDir, ['--paused']).then(
        () => 'listening',
        (err: Error) => err.message
      )
      expect(second).toMatch(/^serve exited \(1\) before listening/)
      expect(second).toContain(`another Clipdesk process (pid ${running.child.pid}, running since `)
      expect(second).toContain(`is using the data folder ${dataDir}; stop it first`)
    } finally {
      running.child.kill('SIGKILL')
    }
    // Killed, and started again at once: `runCli` blocks this process, so the killed serve is
    // not reaped yet (a zombie, whose id still answers `kill(pid, 0)`). The kernel dropped its
    // lock, and the owner note it left (owner.json) names a process that holds nothing.
    const after = runCli(['process', join(root, 'in'), '--out', join(root, 'out'), '--data-dir', dataDir, '--params', 'alpha=keep'])
    expect(after.code, after.stderr).toBe(0)
    expect(after.stdout).not.toContain('Using the Clipdesk server')
    // alpha=keep on a photo without transparency: the model made the mask, which the run's end says.
    expect(after.stdout).toContain('Done with 1 warning.')
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
    expect(run.stdout).toContain('Done with 1 warning.')
  })
})
