/**
 * One active watched folder: a chokidar watcher for changes, a full scan at start (files added
 * while nothing watched) and every `rescanMs` (events the OS dropped), both only *poking* paths
 * into the service, which decides. A runner is thrown away and made anew when its folder's
 * settings change.
 */
import { readdir, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import { ignoreDir, ignoreReason, NOT_AN_IMAGE } from './filter'
import { isStrictlyInside } from '../outputs/paths'

/** Paths the watcher reports: inputs, and files that are not images (said once, never processed). */
const seenAsInput = (reason: string | null): boolean => reason === null || reason === NOT_AN_IMAGE
import type { WatchFolderRecord } from './store'
import { errorText } from '../../shared/errors'

export interface RunnerDeps {
  /** A path (relative, '/'-separated) may have changed: added, written, removed. */
  poke(folderId: string, rel: string): void
  /** Paths the store knows for the folder (a scan pokes those that vanished too). */
  knownPaths(folderId: string): string[]
  /** The runner's state changed (for the views). */
  changed(folderId: string): void
  /** A file of the folder that is not an image: said once in the folder's activity, never processed. */
  notImage(folderId: string, rel: string): void
  log(message: string): void
}

export interface RunnerOptions {
  /** Folders inside the watched one that are not its inputs (output, done, other watched folders), relative. */
  excluded: string[]
  rescanMs: number
}

export function toRel(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/')
}

export class FolderRunner {
  state: 'starting' | 'active' | 'unavailable' = 'starting'
  message: string | null = null
  private watcher: FSWatcher | null = null
  private closed = false
  private rescanTimer: NodeJS.Timeout | null = null
  private reopenTimer: NodeJS.Timeout | null = null
  /** Ends the wait for the watcher's first scan when the runner is closed before it. */
  private stopWaiting: (() => void) | null = null

  constructor(
    readonly folder: WatchFolderRecord,
    /** Changes when the runner must be made anew (settings or exclusions changed). */
    readonly key: string,
    private readonly opts: RunnerOptions,
    private readonly deps: RunnerDeps
  ) {}

  private get filter(): { recursive: boolean; excluded: string[] } {
    return { recursive: this.folder.recursive, excluded: this.opts.excluded }
  }

  async open(): Promise<void> {
    if (this.closed) return
    const root = this.folder.path
    const info = await stat(root).catch(() => null)
    if (!info?.isDirectory()) {
      this.unavailable(`the folder ${root} is missing or not a folder; retrying`)
      return
    }
    this.state = 'starting'
    const watcher = watch(root, {
      ignoreInitial: true,
      followSymlinks: false,
      depth: this.folder.recursive ? undefined : 0,
      persistent: true,
      ignored: (path: string, stats?: { isFile(): boolean; isDirectory(): boolean }) => {
        const rel = toRel(root, path)
        if (!isStrictlyInside(root, path)) return false
        if (stats?.isDirectory()) return ignoreDir(rel, this.filter)
        // Files that are not images are seen (and said once), never processed.
        if (stats?.isFile()) return !seenAsInput(ignoreReason(rel, this.filter))
        // Without stats: only what holds for files and folders alike.
        return rel.split('/').some((p) => p.startsWith('.')) || this.opts.excluded.some((ex) => rel === ex || rel.startsWith(`${ex}/`))
      }
    })
    this.watcher = watcher
    const poke = (path: string): void => {
      const rel = toRel(root, path)
      const reason = ignoreReason(rel, this.filter)
      if (reason === null) this.deps.poke(this.folder.id, rel)
      else if (reason === NOT_AN_IMAGE) this.deps.notImage(this.folder.id, rel)
    }
    watcher.on('add', poke)
    watcher.on('change', poke)
    watcher.on('unlink', poke)
    // A folder moved away or in: its files have no events of their own on every platform.
    watcher.on('unlinkDir', () => void this.scan())
    watcher.on('addDir', (path) => {
      if (toRel(root, path) !== '') void this.scan()
    })
    watcher.on('error', (err) => {
      this.deps.log(`watching ${root}: ${errorText(err)}`)
      this.unavailable(`watching failed: ${errorText(err)}; retrying`)
    })
    await new Promise<void>((resolve) => {
      this.stopWaiting = resolve
      watcher.once('ready', () => resolve())
      watcher.once('error', () => resolve())
    })
    this.stopWaiting = null
    // The watcher may have failed while starting (its error handler marked it unavailable).
    if (this.closed || (this.state as FolderRunner['state']) === 'unavailable') return
    this.state = 'active'
    this.message = null
    this.deps.changed(this.folder.id)
    await this.scan()
    this.rescanTimer = setInterval(() => void this.scan(), this.opts.rescanMs)
    this.rescanTimer.unref()
  }

  /** Pokes every input present, and every known path (so that vanished ones are noticed). */
  async scan(): Promise<void> {
    if (this.closed) return
    const found: string[] = []
    try {
      await this.walk(this.folder.path, '', found)
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR'
      if (!this.closed)
        this.unavailable(
          missing ? `the folder ${this.folder.path} is missing; retrying` : `the folder cannot be read: ${errorText(err)}; retrying`
        )
      return
    }
    if (this.closed) return
    const seen = new Set(found)
    for (const rel of found) this.deps.poke(this.folder.id, rel)
    for (const rel of this.deps.knownPaths(this.folder.id)) {
      // Rows of originals moved into the done folder are history, not inputs.
      if (!seen.has(rel) && ignoreReason(rel, this.filter) === null) this.deps.poke(this.folder.id, rel)
    }
  }

  private async walk(dir: string, rel: string, out: string[]): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (rel !== '' && (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'EACCES')) return []
      throw err
    })
    for (const entry of entries) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!ignoreDir(childRel, this.filter)) await this.walk(full, childRel, out)
      } else {
        const reason = ignoreReason(childRel, this.filter)
        if (reason === NOT_AN_IMAGE && entry.isFile()) this.deps.notImage(this.folder.id, childRel)
        if (reason !== null) continue
        if (entry.isFile()) out.push(childRel)
        else if (entry.isSymbolicLink() && (await stat(full).catch(() => null))?.isFile()) out.push(childRel)
      }
    }
  }

  private unavailable(message: string): void {
    if (this.closed) return
    this.state = 'unavailable'
    this.message = message
    this.deps.changed(this.folder.id)
    void this.watcher?.close()
    this.watcher = null
    if (this.rescanTimer) clearInterval(this.rescanTimer)
    this.rescanTimer = null
    if (!this.reopenTimer) {
      this.reopenTimer = setTimeout(
        () => {
          this.reopenTimer = null
          void this.open()
        },
        Math.min(this.opts.rescanMs, 5000)
      )
      this.reopenTimer.unref()
    }
  }

  async close(): Promise<void> {
    this.closed = true
    this.stopWaiting?.()
    if (this.rescanTimer) clearInterval(this.rescanTimer)
    if (this.reopenTimer) clearTimeout(this.reopenTimer)
    const w = this.watcher
    this.watcher = null
    await w?.close()
  }
}
