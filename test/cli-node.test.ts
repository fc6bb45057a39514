/**
 * The `clipdesk` command under an older system Node: it runs on the project's Node 22 and says
 * so in one line, with no other noise, and that Node starts once, with the allocator's settings,
 * and ends with the command when the command is stopped (`bin/clipdesk.js`). Needs a system Node
 * older than 22.12 at /usr/bin/node (skipped with a message otherwise).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI } from './helpers/cli'
import { tempDir } from './helpers/engine'

const SYSTEM_NODE = '/usr/bin/node'
const systemVersion = existsSync(SYSTEM_NODE) ? spawnSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).stdout.trim() : null
const [major, minor] = (systemVersion ?? 'v99.0.0').slice(1).split('.').map(Number) as [number, number]
const older = systemVersion !== null && (major < 22 || (major === 22 && minor < 12))
if (!older) console.warn(`skipping: needs a system Node older than 22.12 at ${SYSTEM_NODE} (found ${systemVersion ?? 'none'})`)

const data = tempDir()
afterAll(() => rmSync(data, { recursive: true, force: true }))

describe.skipIf(!older)('clipdesk under an older system Node', () => {
  it("runs on the project's Node and says so in one line", () => {
    const r = spawnSync(SYSTEM_NODE, [CLI, 'keys', 'list', '--data-dir', data], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_user_agent: '' }
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('No keys')
    expect(r.stderr.trim().split('\n')).toEqual([
      `clipdesk: using the project's Node ${process.version} (the system Node ${systemVersion} is older than 22.12)`
    ])
  })

  it.skipIf(process.platform !== 'linux')(
    "passes a stop sent to the command on to the project's Node: `serve` ends with it (Linux)",
    async () => {
      const launcher = spawn(SYSTEM_NODE, [CLI, 'serve', '--port', '0', '--data-dir', join(data, 'serve')], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, npm_config_user_agent: '' }
      })
      let out = ''
      launcher.stdout.on('data', (c) => (out += c))
      await expect.poll(() => out, { timeout: 60_000 }).toContain('Listening on http://127.0.0.1:')
      const [engine] = readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, 'utf8').trim().split(/\s+/).map(Number)
      expect(engine).toBeGreaterThan(0)
      const exited = new Promise<NodeJS.Signals | number | null>((r) => launcher.once('exit', (code, signal) => r(signal ?? code)))
      launcher.kill('SIGTERM')
      // The engine stops as `serve` does on SIGTERM (it closes and exits 0), and the launcher with it.
      expect(await exited).toBe(0)
      expect(existsSync(`/proc/${engine}`)).toBe(false)
    }
  )

  it.skipIf(process.platform !== 'linux')("starts the project's Node once, with glibc's allocator settings already set", () => {
    // Every Node start appends its version and GLIBC_TUNABLES to a file (preloaded by NODE_OPTIONS).
    const starts = join(data, 'starts.txt')
    const preload = join(data, 'record-start.cjs')
    writeFileSync(
      preload,
      `require('fs').appendFileSync(${JSON.stringify(starts)}, process.version + ' ' + (process.env.GLIBC_TUNABLES || '-') + '\\n')`
    )
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_user_agent: '', NODE_OPTIONS: `--require ${preload}` }
    delete env.GLIBC_TUNABLES
    const r = spawnSync(SYSTEM_NODE, [CLI, 'keys', 'list', '--data-dir', data], { encoding: 'utf8', env })
    expect(r.status, r.stderr).toBe(0)
    expect(readFileSync(starts, 'utf8').trim().split('\n')).toEqual([
      `${systemVersion} -`,
      `${process.version} glibc.malloc.mmap_threshold=33554432:glibc.malloc.hugetlb=1`
    ])
  })
})
