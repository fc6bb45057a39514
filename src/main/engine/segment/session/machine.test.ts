import { describe, expect, it } from 'vitest'
import { cpuProfile, fingerprintOf, linuxCpu, machineCacheDir } from './machine'

const cpuinfo = (cores: Array<[socket: number, core: number]>, flags: string): string =>
  cores
    .map(([s, c], i) => `processor\t: ${i}\nmodel name\t: Test\nphysical id\t: ${s}\ncore id\t\t: ${c}\nflags\t\t: ${flags}\n`)
    .join('\n')

describe('the CPU of this machine', () => {
  it('counts physical cores from (socket, core) pairs and keeps the SIMD flags that choose kernels', () => {
    // 2 sockets × 2 cores × 2 hardware threads each.
    const text = cpuinfo(
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1]
      ],
      'fpu sse4_2 avx avx2 fma avx512f avx512_vnni ht'
    )
    expect(linuxCpu(8, text)).toEqual({ physical: 4, simd: ['sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512_vnni'] })
    // A container limited to fewer CPUs than the machine has cores.
    expect(linuxCpu(2, text).physical).toBe(2)
    expect(linuxCpu(4, null)).toEqual({ physical: null, simd: [] })
  })

  it('has a profile with a fingerprint that changes with any of its parts', () => {
    const p = cpuProfile()
    expect(p.logical).toBeGreaterThan(0)
    expect(p.fingerprint).toMatch(/^[0-9a-f]{16}$/)
    const { fingerprint, ...rest } = p
    expect(fingerprintOf(rest)).toBe(fingerprint)
    expect(fingerprintOf({ ...rest, ort: '9.9.9' })).not.toBe(fingerprint)
    expect(fingerprintOf({ ...rest, simd: [] })).not.toBe(fingerprint)
  })

  it('keeps its cache in the platform cache folder, or CLIPDESK_CACHE_DIR', () => {
    expect(machineCacheDir({ CLIPDESK_CACHE_DIR: '/x/cache' }, 'linux')).toBe('/x/cache')
    expect(machineCacheDir({ XDG_CACHE_HOME: '/home/u/.cache' }, 'linux')).toBe('/home/u/.cache/clipdesk')
    expect(machineCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toMatch(/Clipdesk.Cache$/)
    expect(machineCacheDir({}, 'darwin')).toMatch(/Library.Caches.Clipdesk$/)
  })
})
