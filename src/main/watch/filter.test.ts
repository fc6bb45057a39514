import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { ignoreDir, ignoreReason, looksComplete, settingsHash } from './filter'

const opts = { recursive: true, excluded: ['clipdesk-out', 'clipdesk-done'] }

describe('ignoreReason', () => {
  it.each([
    ['photo.jpg', null],
    ['Sub/Photo.PNG', null],
    ['.hidden.png', 'hidden'],
    ['.cache/a.png', 'hidden'],
    ['clipdesk-out/a.png', 'in the output or done folder'],
    ['clipdesk-done/x/a.png', 'in the output or done folder'],
    ['clipdesk-outer/a.png', null],
    ['a.png.crdownload', 'a temporary file'],
    ['a.png.part', 'a temporary file'],
    ['~$a.png', 'a temporary file'],
    ['a.png~', 'a temporary file'],
    ['out/ball.prev-1.png', 'a previous version kept by a touch-up'],
    ['ball.cut-out.prev-12.webp', 'a previous version kept by a touch-up'],
    ['ball.prev-0.png', null],
    ['ball.prev-.png', null],
    ['ball.prev-1x.png', null],
    ['.prev-1.png', 'hidden'],
    ['notes.txt', 'not an image'],
    ['noext', 'not an image']
  ])('%s → %s', (rel, reason) => {
    expect(ignoreReason(rel, opts)).toBe(reason)
  })
  it('without recursion, only the top level counts', () => {
    expect(ignoreReason('sub/a.png', { ...opts, recursive: false })).toContain('sub-folder')
    expect(ignoreDir('sub', { ...opts, recursive: false })).toBe(true)
    expect(ignoreDir('', { ...opts, recursive: false })).toBe(false)
    expect(ignoreDir('clipdesk-out', opts)).toBe(true)
    expect(ignoreDir('day1', opts)).toBe(false)
  })
})

describe('looksComplete', () => {
  it('recognises cut-short PNG, JPEG, WebP and GIF files', async () => {
    const img = sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
    for (const format of ['png', 'jpeg', 'webp', 'gif'] as const) {
      const full = await img.clone().toFormat(format).toBuffer()
      expect(looksComplete(full), format).toBe(true)
      expect(looksComplete(full.subarray(0, Math.floor(full.length * 0.6))), `${format} cut`).toBe(false)
    }
  })
  it('trusts formats it cannot check', async () => {
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer()
    expect(looksComplete(tiff)).toBe(true)
  })
})

describe('settingsHash', () => {
  it('changes with the job request only', () => {
    const a = settingsHash({ mode: 'clipping', params: null, output_format: 'png' })
    expect(settingsHash({ mode: 'clipping', params: null, output_format: 'png' })).toBe(a)
    expect(settingsHash({ mode: 'clipping', params: null, output_format: 'webp' })).not.toBe(a)
    expect(settingsHash({ mode: 'params', params: 'ecommerce-white', output_format: 'png' })).not.toBe(a)
  })
})
