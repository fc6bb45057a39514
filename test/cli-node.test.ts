/**
 * The `clipdesk` command under an older system Node: it runs on the project's Node 22 and says
 * so in one line, with no other noise. Needs a system Node older than 22.12 at /usr/bin/node
 * (skipped with a message otherwise).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
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
    const r = spawnSync(SYSTEM_NODE, [CLI, 'keys', 'list', '--data-dir', data], { encoding: 'utf8', env: { ...process.env, npm_config_user_agent: '' } })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('No keys')
    expect(r.stderr.trim().split('\n')).toEqual([`clipdesk: using the project's Node ${process.version} (the system Node ${systemVersion} is older than 22.12)`])
  })
})
