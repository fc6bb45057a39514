/**
 * The resident model sessions. One session at a time: a job asking for another model waits
 * until the jobs using the current one are done with it, then the current session is closed
 * (its worker ends and its memory goes back) before the next is loaded. Two large sessions
 * side by side would double the peak (≈1 GB each for IS-Net, several GB for BiRefNet).
 */
import type { ActualDevice, Device, SessionSettings } from '../../../../shared/models'
import { JobFailure } from '../../errors'
import { Segmenter, type SegmenterOptions } from '../mask/mask'
import { machineCacheDir } from '../session/machine'
import { sessionBytesNeeded } from './memory'
import type { ModelRegistry, RegisteredModel } from './registry'

interface Entry {
  name: string
  device: Device
  bytes: number
  leases: number
  segmenter: Promise<Segmenter>
  /** Set once loaded, for `status` without awaiting. */
  loaded: Segmenter | null
}

export interface PoolOptions {
  /** Intra-op threads; undefined: chosen for the machine. */
  threads?: number
  /** Device override (e.g. `clipdesk serve --device`); else the registry's setting. */
  device?: Device
  /** Where warnings go (device fallback). */
  log?: (message: string) => void
  /** Extra segmenter options (tests: a model folder). */
  segmenterOptions?: Partial<SegmenterOptions>
  /**
   * A session nobody has used for this long is closed, giving its memory back (about 1.2 GB
   * for IS-Net on the CPU: the weights and the arena that holds a run's activations); the next
   * job loads it again from the machine's optimised copy. 0: kept while the engine runs.
   * @default 5 minutes
   */
  idleCloseMs?: number
}

export class ModelPool {
  private current: Entry | null = null
  private readonly owners = new Map<Segmenter, Entry>()
  private idleWaiters: (() => void)[] = []
  private idleTimer: NodeJS.Timeout | null = null
  /** An idle session being closed: the next load waits for its memory to go back first. */
  private closing: Promise<void> = Promise.resolve()

  constructor(
    private readonly registry: ModelRegistry,
    private readonly opts: PoolOptions
  ) {}

  device(): Device {
    return this.opts.device ?? this.registry.device()
  }

  /** The session of model `name` (null: the default), loading it if needed. Pair with `release`. */
  async acquire(name: string | null | undefined): Promise<Segmenter> {
    const want = name ?? this.registry.defaultModel()
    const model = this.registry.get(want)
    if (!model)
      throw new JobFailure(
        'model_unavailable',
        `No model named ${want}; models: ${this.registry
          .all()
          .map((m) => m.name)
          .join(', ')}.`
      )
    const device = this.device()
    this.stopIdleTimer()
    for (;;) {
      const cur = this.current
      if (cur && cur.name === want && cur.device === device) {
        cur.leases++
        try {
          return await cur.segmenter
        } catch (err) {
          this.drop(cur)
          throw err
        }
      }
      if (cur && cur.leases > 0) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
        continue
      }
      this.current = this.load(model, device, cur)
    }
  }

  /** Gives back a session from `acquire`. */
  release(segmenter: Segmenter): void {
    const entry = this.owners.get(segmenter)
    if (entry) this.drop(entry)
  }

  /** The model's session as it stands (for listings), or null when not resident. */
  status(name: string): { activeDevice: ActualDevice; deviceWarning: string | null; settings: SessionSettings } | null {
    const cur = this.current
    if (!cur || cur.name !== name || !cur.loaded) return null
    return { activeDevice: cur.loaded.device, deviceWarning: cur.loaded.deviceWarning, settings: cur.loaded.settings }
  }

  /** The machine cache the sessions use (null: none). */
  cacheDir(): string | null {
    const given = this.opts.segmenterOptions?.cacheDir
    return given === undefined ? machineCacheDir() : given
  }

  /** Closes the resident session (engine stop). */
  async close(): Promise<void> {
    this.stopIdleTimer()
    const cur = this.current
    this.current = null
    if (cur) await cur.segmenter.then((s) => s.close()).catch(() => undefined)
    for (const w of this.idleWaiters.splice(0)) w()
  }

  private load(model: RegisteredModel, device: Device, previous: Entry | null): Entry {
    const side = Math.max(...model.descriptor.input.size)
    const entry: Entry = {
      name: model.name,
      device,
      bytes: sessionBytesNeeded(model.bytes, side),
      leases: 0,
      loaded: null,
      segmenter: Promise.resolve(null as never)
    }
    entry.segmenter = (async () => {
      // Switching frees the previous session first: its worker ends, its memory goes back.
      if (previous) await previous.segmenter.then((s) => s.close()).catch(() => undefined)
      await this.closing
      const base: SegmenterOptions = { threads: this.opts.threads, device, ...this.opts.segmenterOptions }
      const s = model.builtin
        ? await Segmenter.create({ ...base, variant: model.variant })
        : await Segmenter.create({ ...base, model: this.registry.modelSource(model, previous?.bytes ?? 0) })
      if (s.deviceWarning) this.opts.log?.(`model ${model.name}: ${s.deviceWarning}`)
      entry.loaded = s
      this.owners.set(s, entry)
      return s
    })()
    entry.segmenter.catch(() => {
      if (this.current === entry) this.current = null
    })
    return entry
  }

  private drop(entry: Entry): void {
    entry.leases = Math.max(0, entry.leases - 1)
    if (entry.leases > 0) return
    for (const w of this.idleWaiters.splice(0)) w()
    const idleMs = this.opts.idleCloseMs ?? 5 * 60_000
    if (idleMs > 0 && this.current === entry) {
      this.stopIdleTimer()
      this.idleTimer = setTimeout(() => this.closeIdle(entry), idleMs)
      this.idleTimer.unref()
    }
  }

  /** The idle time passed with no lease taken: the session goes (unless taken again meanwhile). */
  private closeIdle(entry: Entry): void {
    this.idleTimer = null
    if (this.current !== entry || entry.leases > 0) return
    this.current = null
    this.closing = entry.segmenter.then((s) => s.close()).catch(() => undefined)
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = null
  }
}
