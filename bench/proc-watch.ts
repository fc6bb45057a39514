/**
 * Peak memory and CPU time of a process tree from outside, for the benchmarks that run the
 * real commands (`speed.ts`): the engine process's peak resident set (VmHWM) and the user and
 * system CPU time of it and its children (the decode sandboxes), sampled from /proc. Linux only;
 * elsewhere every figure is null. A child that exits between two samples keeps its last figures.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS = 100

interface Seen {
  user: number
  system: number
  peakKb: number
}

export interface TreeFigures {
  /** The root process's peak resident set, MB. */
  peak_rss_mb: number | null
  /** The largest peak of any other process of the tree, MB. */
  children_peak_rss_mb: number | null
  user_s: number | null
  sys_s: number | null
}

export class ProcessTreeWatch {
  private readonly seen = new Map<number, Seen>()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly root: number,
    everyMs = 100
  ) {
    this.sample()
    this.timer = setInterval(() => this.sample(), everyMs)
  }

  /** Stops sampling; the figures of the last sample. */
  stop(): TreeFigures {
    clearInterval(this.timer)
    if (process.platform !== 'linux' || this.seen.size === 0)
      return { peak_rss_mb: null, children_peak_rss_mb: null, user_s: null, sys_s: null }
    let user = 0
    let system = 0
    let childPeak = 0
    for (const [pid, s] of this.seen) {
      user += s.user
      system += s.system
      if (pid !== this.root) childPeak = Math.max(childPeak, s.peakKb)
    }
    const rootPeak = this.seen.get(this.root)?.peakKb ?? 0
    return {
      peak_rss_mb: Math.round(rootPeak / 1024),
      children_peak_rss_mb: this.seen.size > 1 ? Math.round(childPeak / 1024) : null,
      user_s: Math.round((user / TICKS) * 10) / 10,
      sys_s: Math.round((system / TICKS) * 10) / 10
    }
  }

  private sample(): void {
    if (process.platform !== 'linux') return
    for (const pid of tree(this.root)) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
        // Fields after the command name (which may hold spaces) in parentheses.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const status = readFileSync(`/proc/${pid}/status`, 'latin1')
        const at = status.indexOf('VmHWM:')
        // A process that has exited but is not yet reaped (a zombie) has no VmHWM line: its peak
        // is the one seen before, never 0. The highest seen stands (an exec starts a new count).
        const before = this.seen.get(pid)?.peakKb ?? 0
        const peakKb = at < 0 ? before : Math.max(before, Number.parseInt(status.slice(at + 6, status.indexOf('\n', at)).trim(), 10))
        this.seen.set(pid, { user: Number(fields[11]), system: Number(fields[12]), peakKb })
      } catch {
        // exited between the listing and the read: its last sample stands
      }
    }
  }
}

/** The pid and its descendants, from /proc/<pid>/task/<tid>/children. */
function tree(root: number): number[] {
  const out: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    const pid = queue.shift()!
    out.push(pid)
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tasks) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' ')) if (c.trim()) queue.push(Number(c))
      } catch {
        // gone
      }
    }
  }
  return out
}
