/**
 * Helpers shared by the benchmarks: options, the corpus, memory and machine figures.
 * Benchmarks print JSON on stdout and never assert a time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, extname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project folder (set by bench/run.mjs, since this code runs from a bundle elsewhere). */
export const ROOT = process.env.CLIPDESK_BENCH_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** `--name value` and `--flag` options. */
export function options(args: string[]): { get(name: string): string | undefined; has(name: string): boolean } {
  return {
    get(name) {
      const i = args.indexOf(`--${name}`)
      return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined
    },
    has(name) {
      return args.includes(`--${name}`)
    }
  }
}

export function positiveInt(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${what} must be a positive integer, got ${value}`)
  return n
}

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif', '.avif', '.tif', '.tiff', '.psd', '.svg'])

/** The corpus folder: `--corpus`, else ../shared/corpus/inputs next to the project when present. */
export function corpusDir(given: string | undefined): string {
  const dir = given ? resolve(given) : resolve(ROOT, '../shared/corpus/inputs')
  if (!existsSync(dir)) throw new Error(`corpus folder ${dir} not found; pass --corpus <dir>`)
  return dir
}

/** Image files of a folder, sorted by name. */
export function corpusFiles(dir: string, limit?: number): string[] {
  const files = readdirSync(dir)
    .filter((f) => IMAGE_EXTENSIONS.has(extname(f).toLowerCase()))
    .sort()
    .map((f) => join(dir, f))
  if (files.length === 0) throw new Error(`no images in ${dir}`)
  return limit ? files.slice(0, limit) : files
}

/** Resident set size now and at its peak (VmHWM), in MB, from /proc; null elsewhere. */
export function memory(pid: number | 'self' = 'self'): { rssMb: number; peakMb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
    return { rssMb: round(kb('VmRSS') / 1024, 1), peakMb: round(kb('VmHWM') / 1024, 1) }
  } catch {
    return null
  }
}

/** Samples this process' RSS (all threads, incl. the inference worker) every `ms`; peak where /proc is absent. */
export function rssSampler(ms = 50): { peakMb(): number; stop(): void } {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, ms)
  timer.unref()
  return {
    peakMb: () => round(Math.max(peak, process.memoryUsage().rss) / 1024 / 1024, 1),
    stop: () => clearInterval(timer)
  }
}

export function machine(): Record<string, unknown> {
  return {
    cpus: os.availableParallelism(),
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${process.platform}-${process.arch}`
  }
}

export function loadAverage(): number[] {
  return os.loadavg().map((v) => round(v, 2))
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export function round(v: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(v * f) / f
}

export function mimeOf(file: string): string {
  const ext = extname(file).toLowerCase()
  return ext === '.png' ? 'image/png' : ext === '.webp' ? 'image/webp' : 'image/jpeg'
}
