import { describe, expect, it } from 'vitest'
import { firstFree, numbered } from './numbered'

describe('numbered names', () => {
  it('puts -n before the last extension, keeps the name for 0', () => {
    expect(numbered('/o/a/photo.clipping.png', 0)).toBe('/o/a/photo.clipping.png')
    expect(numbered('/o/a/photo.clipping.png', 1)).toBe('/o/a/photo.clipping-1.png')
    expect(numbered('a/photo.png', 2)).toBe('a/photo-2.png')
    expect(numbered('C:\\o\\x.tif', 3)).toBe('C:\\o\\x-3.tif')
  })

  it('appends to names without an extension, and to hidden names', () => {
    expect(numbered('/o/a.b/noext', 3)).toBe('/o/a.b/noext-3')
    expect(numbered('/o/.hidden', 1)).toBe('/o/.hidden-1')
  })

  it('gives the first free name', () => {
    const taken = new Set(['p.png', 'p-1.png'])
    expect(firstFree('p.png', (c) => taken.has(c))).toBe('p-2.png')
    expect(firstFree('q.png', (c) => taken.has(c))).toBe('q.png')
    expect(() => firstFree('p.png', () => true, 5)).toThrow('no free file name for p.png')
  })
})
