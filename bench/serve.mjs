/**
 * Shared by the benchmarks that drive `clipdesk serve` as a user would: the built command, and
 * a server started on a free loopback port with its first API key read from its output.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const cli = join(root, 'bin', 'clipdesk.js')

/** Exits with a message when the command is not built yet. */
export function requireBuilt(name) {
  if (!existsSync(join(root, 'out', 'main', 'cli.js'))) {
    console.error(`${name}: build first (npm run build)`)
    process.exit(1)
  }
}

/** `clipdesk serve --port 0 --data-dir <dir> ...args`, resolved once it listens and printed its key. */
export function startServer(dataDir, args = []) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (c) => {
      out += c
      const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]
      const key = /API key: (\S+)/.exec(out)?.[1]
      if (port && key) resolve({ child, port: Number(port), key })
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}
