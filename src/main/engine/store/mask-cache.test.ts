import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openDatabase, type Db } from './db'
import { inputHash, MaskCache, type CachedMask } from './mask-cache'

let dir: string
let db: Db
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clipdesk-maskcache-'))
  db = openDatabase(join(dir, 'db.sqlite'))
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A w×h mask with a soft diagonal edge and some noise, so PNGs differ in size. */
function mask(w = 64, h = 48, seed = 1): CachedMask {
  const data = Buffer.alloc(w * h)
  let s = seed
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff
      data[y * w + x] = Math.max(0, Math.min(255, (x - y) * 16 + 128 + (s % 7)))
    }
  return { data, width: w, height: h }
}

describe('MaskCache', () => {
  it('stores and returns the exact mask, by input hash and model', async () => {
    const cache = new MaskCache(db)
    const m = mask()
    const hash = inputHash(Buffer.from('photo bytes'))
    expect(hash).toBe('2a6927613ddc903379f3e02145f22074ccf048c7753cfa1ed8ee26c746682997')
    expect(await cache.get(hash, 'isnet-medium/1')).toBeNull()
    await cache.put(hash, 'isnet-medium/1', m)
    const got = await cache.get(hash, 'isnet-medium/1')
    expect(got).toMatchObject({ width: 64, height: 48 })
    expect(got!.data.equals(m.data)).toBe(true)
    // Another model's mask of the same photo is another entry.
    expect(await cache.get(hash, 'isnet-small/1')).toBeNull()
    expect(cache.stats().entries).toBe(1)
  })

  it('keeps the most recently used entries within maxEntries', async () => {
    let now = 1000
    const cache = new MaskCache(db, { maxEntries: 2, now: () => now })
    for (const k of ['a', 'b']) {
      now++
      await cache.put(k, 'm', mask())
    }
    now++
    expect(await cache.get('a', 'm')).not.toBeNull() // 'a' is now more recent than 'b'
    now++
    await cache.put('c', 'm', mask())
    expect(await cache.get('b', 'm')).toBeNull()
    expect(await cache.get('a', 'm')).not.toBeNull()
    expect(await cache.get('c', 'm')).not.toBeNull()
    expect(cache.stats().entries).toBe(2)
  })

  it('keeps the stored bytes within maxBytes', async () => {
    let now = 0
    const probe = new MaskCache(db, { now: () => now })
    await probe.put('size', 'm', mask(64, 48, 7))
    const one = probe.stats().bytes
    const cache = new MaskCache(db, { maxBytes: Math.floor(one * 2.5), now: () => ++now })
    for (const k of ['a', 'b', 'c', 'd']) await cache.put(k, 'm', mask(64, 48, 7))
    const { entries, bytes } = cache.stats()
    expect(entries).toBe(2)
    expect(bytes).toBeLessThanOrEqual(one * 2.5)
    expect(await cache.get('d', 'm')).not.toBeNull()
    expect(await cache.get('size', 'm')).toBeNull()
  })

  it('sweeps entries not used since a time', async () => {
    let now = 100
    const cache = new MaskCache(db, { now: () => now })
    await cache.put('old', 'm', mask())
    now = 200
    await cache.put('new', 'm', mask())
    expect(cache.sweep(150)).toBe(1)
    expect(await cache.get('old', 'm')).toBeNull()
    expect(await cache.get('new', 'm')).not.toBeNull()
  })

  it('drops an entry it cannot read', async () => {
    const cache = new MaskCache(db)
    await cache.put('x', 'm', mask())
    db.prepare("UPDATE mask_cache SET mask = X'00010203'").run()
    expect(await cache.get('x', 'm')).toBeNull()
    expect(cache.stats().entries).toBe(0)
  })

  it('getOrCompute: computes once, then hits; concurrent callers share one computation', async () => {
    const cache = new MaskCache(db)
    const compute = vi.fn(async () => mask())
    const [a, b] = await Promise.all([cache.getOrCompute('h', 'm', compute), cache.getOrCompute('h', 'm', compute)])
    expect(compute).toHaveBeenCalledTimes(1)
    expect([a.hit, b.hit].sort()).toEqual([false, true])
    expect(b.mask.data.equals(a.mask.data)).toBe(true)
    const c = await cache.getOrCompute('h', 'm', compute)
    expect(c.hit).toBe(true)
    expect(compute).toHaveBeenCalledTimes(1)
  })

  it("getOrCompute: a waiter does not inherit another caller's failure", async () => {
    const cache = new MaskCache(db)
    const failure = new Error('first job cancelled')
    const first = cache.getOrCompute('h', 'm', async () => {
      throw failure
    })
    const second = cache.getOrCompute('h', 'm', async () => mask())
    await expect(first).rejects.toBe(failure)
    expect((await second).hit).toBe(false)
    expect(cache.stats().entries).toBe(1)
  })

  it('getOrCompute: a mask that cannot be stored is still returned', async () => {
    const cache = new MaskCache(db)
    const bad = { data: Buffer.alloc(10), width: 4, height: 4 } // wrong length: put refuses it
    await expect(cache.put('h', 'm', bad)).rejects.toThrow('mask has 10 bytes, expected 4×4')
    const got = await cache.getOrCompute('h', 'm', async () => bad)
    expect(got).toEqual({ mask: bad, hit: false })
    expect(cache.stats().entries).toBe(0)
  })

  it('refuses bad bounds', () => {
    expect(() => new MaskCache(db, { maxEntries: -1 })).toThrow('maxEntries must be a non-negative integer, got -1')
    expect(() => new MaskCache(db, { maxBytes: 1.5 })).toThrow('maxBytes must be a non-negative integer, got 1.5')
  })
})
