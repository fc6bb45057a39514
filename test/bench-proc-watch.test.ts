/**
 * The benchmarks' process-tree watch (bench/proc-watch.ts) keeps a process's peak memory once it
 * has exited: a child that ends before the watch stops, and stays unreaped (a zombie, which /proc
 * shows without memory lines), still counts with the peak it reached. Real processes, Linux only.
 */
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ProcessTreeWatch } from '../bench/proc-watch'

describe.runIf(process.platform === 'linux')('the benchmarks’ process-tree watch', () => {
  it('keeps the peak of a child that exited and was not reaped, and counts its CPU time', async () => {
    // The shell starts a Node child that touches 160 MB for 0.6 s, then becomes `sleep`, which
    // never reaps it: the child stays a zombie for the rest of the watch.
    const touch = 'const b = Buffer.alloc(160 * 1024 * 1024, 1); setTimeout(() => b.length, 600)'
    const root = spawn('sh', ['-c', `"${process.execPath}" -e "${touch}" & exec sleep 3`], { stdio: 'ignore' })
    const watch = new ProcessTreeWatch(root.pid!, 50)
    await new Promise((r) => setTimeout(r, 2000))
    const figures = watch.stop()
    root.kill('SIGKILL')
    await new Promise((r) => root.once('exit', r))
    expect(figures.children_peak_rss_mb).toBeGreaterThanOrEqual(150)
    expect(figures.peak_rss_mb).toBeGreaterThan(0)
    expect(figures.user_s! + figures.sys_s!).toBeGreaterThan(0)
  })
})
