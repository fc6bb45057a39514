/**
 * What the model's speed depends on in this machine: the CPU (model, logical and physical
 * cores, the SIMD extensions ONNX Runtime's kernels pick from) and the ONNX Runtime build. Its
 * fingerprint names the per-machine caches (the optimised model and the measured session
 * settings, `optimized-model.ts`, `tuning.ts`): a new CPU, a moved data folder on another
 * machine or an ONNX Runtime upgrade makes a new fingerprint, so both are made again.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os, { homedir } from 'node:os'
import { join } from 'node:path'

export interface CpuProfile {
  model: string
  /** Hardware threads the process may use. */
  logical: number
  /**
   * Cores that run the model's threads well: physical cores (one hardware thread each), and on
   * Apple silicon the performance cores. Null where the platform does not say (Windows: the
   * session settings then measure both counts, `tuning.ts`).
   */
  physical: number | null
  /** The SIMD extensions that decide which kernels ONNX Runtime runs (AVX2, AVX-512, VNNI, NEON…). */
  simd: string[]
  platform: string
  arch: string
  /** ONNX Runtime's version (the native package's). */
  ort: string
  /** A short hash of everything above. */
  fingerprint: string
}

/** The flags that matter for ONNX Runtime's x86 kernels (MLAS picks its code paths from these). */
const X86_SIMD = [
  'sse4_1',
  'sse4_2',
  'avx',
  'avx2',
  'fma',
  'f16c',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx_vnni',
  'avx512_bf16',
  'amx_bf16',
  'amx_int8',
  'amx_tile'
]

let cached: CpuProfile | null = null

/** This machine's profile (read once per process). */
export function cpuProfile(): CpuProfile {
  if (cached) return cached
  const logical = os.availableParallelism()
  const base = {
    model: os.cpus()[0]?.model?.trim() || 'unknown',
    logical,
    platform: process.platform,
    arch: process.arch,
    ort: ortVersion()
  }
  const detail =
    process.platform === 'linux' ? linuxCpu(logical) : process.platform === 'darwin' ? darwinCpu(logical) : { physical: null, simd: [] }
  const profile = { ...base, ...detail }
  cached = { ...profile, fingerprint: fingerprintOf(profile) }
  return cached
}

export function fingerprintOf(p: Omit<CpuProfile, 'fingerprint'>): string {
  const text = JSON.stringify([p.model, p.logical, p.physical, p.simd, p.platform, p.arch, p.ort])
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}

/**
 * `/proc/cpuinfo`: distinct (physical id, core id) pairs are the physical cores; the first
 * `flags` line holds the SIMD extensions. Limited to the CPUs this process may use.
 */
export function linuxCpu(logical: number, cpuinfo = readText('/proc/cpuinfo')): { physical: number | null; simd: string[] } {
  if (!cpuinfo) return { physical: null, simd: [] }
  const cores = new Set<string>()
  let socket = '0'
  let flags: string[] | null = null
  for (const line of cpuinfo.split('\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (key === 'physical id') socket = value
    else if (key === 'core id') cores.add(`${socket}/${value}`)
    else if (key === 'flags' && flags === null) flags = value.split(' ')
  }
  const have = new Set(flags ?? [])
  // The cpuset may be smaller than the machine (containers): never more cores than CPUs usable.
  const physical = cores.size > 0 ? Math.min(cores.size, logical) : null
  return { physical, simd: X86_SIMD.filter((f) => have.has(f)) }
}

/** macOS: performance cores on Apple silicon (efficiency cores slow a parallel run's every step), else physical cores. */
function darwinCpu(logical: number): { physical: number | null; simd: string[] } {
  const read = (name: string): string | null => {
    try {
      return execFileSync('sysctl', ['-n', name], { encoding: 'utf8', timeout: 2000 }).trim()
    } catch {
      return null
    }
  }
  const perf = Number(read('hw.perflevel0.physicalcpu'))
  const phys = Number(read('hw.physicalcpu'))
  const physical = Number.isInteger(perf) && perf > 0 ? perf : Number.isInteger(phys) && phys > 0 ? phys : null
  if (process.arch === 'arm64') {
    const simd = [
      'neon',
      ...['FEAT_DotProd', 'FEAT_I8MM', 'FEAT_BF16', 'FEAT_FP16']
        .filter((f) => read(`hw.optional.arm.${f}`) === '1')
        .map((f) => f.slice(5).toLowerCase())
    ]
    return { physical: physical === null ? null : Math.min(physical, logical), simd }
  }
  const features = `${read('machdep.cpu.features') ?? ''} ${read('machdep.cpu.leaf7_features') ?? ''}`.toLowerCase().split(/\s+/)
  const have = new Set(features.map((f) => f.replace('.', '_')))
  return { physical: physical === null ? null : Math.min(physical, logical), simd: X86_SIMD.filter((f) => have.has(f)) }
}

function ortVersion(): string {
  try {
    const require = createRequire(import.meta.url)
    const pkg = join(require.resolve('onnxruntime-node'), '..', '..', 'package.json')
    return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/**
 * The machine's cache folder for Clipdesk: per machine, not per data folder (two data folders
 * on one machine share the optimised models). `CLIPDESK_CACHE_DIR` moves it (tests, portable
 * installs). Linux: `$XDG_CACHE_HOME/clipdesk` (`~/.cache/clipdesk`); macOS:
 * `~/Library/Caches/Clipdesk`; Windows: `%LOCALAPPDATA%\Clipdesk\Cache`.
 */
export function machineCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CLIPDESK_CACHE_DIR) return env.CLIPDESK_CACHE_DIR
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'Clipdesk', 'Cache')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'Clipdesk')
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'clipdesk')
}
