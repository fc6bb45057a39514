/**
 * Processes of the studio benchmarks (`bench/studio.mjs`, `bench/studio-hostile.mjs`): a
 * real `redis-server` on a free loopback port, the built `clipdesk` command, and what /proc
 * says of a process (CPU time, resident memory).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const cli = join(root, 'bin', 'clipdesk.js')

/** Exits with a message unless the CLI is built and redis-server is installed; its path. */
export function requireStudioSetup(name) {
  if (!existsSync(join(root, 'out', 'main', 'cli.js'))) {
    console.error(`${name}: build first (npm run build)`)
    process.exit(1)
  }
  const redisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim()
  if (!redisServer) {
    console.error(`${name}: redis-server is not installed (apt-get install redis-server)`)
    process.exit(1)
  }
  return redisServer
}

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

export function startRedis(redisServer, port) {
  const child = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore']
  })
  return new Promise((resolve) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      if (out.includes('Ready to accept')) resolve(child)
    })
  })
}

export function waitLine(child, pattern) {
  return new Promise((resolve, reject) => {
    let out = ''
    const on = (d) => {
      out += d
      const m = pattern.exec(out)
      if (m) {
        child.stdout.off('data', on)
        resolve(m)
      }
    }
    child.stdout.on('data', on)
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

export function cliSync(args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout.trim().split('\n').pop()
}

/** CPU time (user + system) of a process so far, in ms. */
export function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100 // utime + stime, in clock ticks of 10 ms
}

/** Resident memory of a process now, in MB. */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : 0
}
