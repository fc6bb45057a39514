/**
 * API keys never appear in clear: not in the database files (incl. the WAL), not in error
 * bodies, not in the server's output beyond the one line that shows a new key once.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { json } from './helpers/http'

const data = tempDir()
afterAll(() => rmSync(data, { recursive: true, force: true }))

it('keeps keys out of the database, error bodies and logs', async () => {
  const serve = await startServe(data)
  const first = serve.key!
  const created = runCli(['keys', 'create', '--credits', '3', '--data-dir', data])
  const second = created.stdout.trim().split('\n').at(-1)!
  const wrong = `${second.slice(0, -4)}AAAA`
  try {
    const base = `http://127.0.0.1:${serve.port}`
    for (const key of [first, second]) {
      const ok = await fetch(`${base}/api/v1/status?job_id=nope`, { headers: { 'X-API-Key': key } })
      expect(ok.status).toBe(422)
      expect(JSON.stringify(await json(ok))).not.toContain(key)
    }
    const bad = await fetch(`${base}/api/v1/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': wrong, 'Content-Type': 'application/json' },
      body: '{}'
    })
    expect(bad.status).toBe(401)
    expect(JSON.stringify(await json(bad))).not.toContain(wrong)
  } finally {
    serve.child.kill('SIGTERM')
    await serve.exited
  }
  // The first key is shown once, on the line that announces it; the others never.
  const output = serve.output()
  expect(output.split(first).length - 1).toBe(1)
  expect(output).toContain(`API key: ${first}`)
  expect(output).not.toContain(second)
  expect(output).not.toContain(wrong)
  // No database file holds any key, in whole or in its secret part.
  for (const file of readdirSync(data).filter((f) => f.startsWith('clipdesk.db'))) {
    const bytes = readFileSync(join(data, file)).toString('latin1')
    for (const key of [first, second]) {
      expect(bytes.includes(key), file).toBe(false)
      expect(bytes.includes(key.slice(8)), file).toBe(false)
    }
  }
})
