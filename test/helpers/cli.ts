import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The built command, as `npx clipdesk` runs it (npm test builds it first). */
export const CLI = fileURLToPath(new URL('../../bin/clipdesk.js', import.meta.url))

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

export interface ServeProcess {
  child: ChildProcess
  port: number
  /** Key printed on an empty data folder, if any. */
  key: string | null
  output(): string
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>
}

/**
 * Starts `clipdesk serve --port 0` and waits for its "Listening on" line. With `fileLimit`, it
 * runs under `ulimit -n <fileLimit>` (soft and hard: the launcher cannot raise it again).
 */
export function startServe(dataDir: string, extra: string[] = [], opts: { fileLimit?: number } = {}): Promise<ServeProcess> {
  const args = [CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...extra]
  const child = opts.fileLimit
    ? spawn('/bin/sh', ['-c', `ulimit -n ${opts.fileLimit} && exec "$0" "$@"`, process.execPath, ...args], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      const m = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) {
        child.stdout!.off('data', onData)
        child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
        const key = /API key: (\S+)/.exec(out)?.[1] ?? null
        resolve({ child, port: Number(m[1]), key, output: () => out, exited })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening:\n${out}`)))
  })
}
