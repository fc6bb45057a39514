import { describe, expect, it } from 'vitest'
import { imageMimeOf, IMAGE_EXTENSIONS, isImageName } from './image-types'
import { escapeControls, stripControls } from './text'

const NASTY = 'a\x1b[2J\nb\r\t\x00\x7f\x85\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069c'

describe('names are text', () => {
  it('strips control characters and bidi marks from names', () => {
    expect(stripControls(NASTY)).toBe('a[2Jbc')
    expect(stripControls('photo é ✓.png')).toBe('photo é ✓.png')
  })

  it('escapes them for a terminal or a text report, visibly and on one line', () => {
    const shown = escapeControls(NASTY)
    expect(shown).toBe('a\\x1b[2J\\nb\\r\\t\\x00\\x7f\\x85\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069c')
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/)
    expect(escapeControls('plain text, é')).toBe('plain text, é')
  })
})

describe('the one list of image endings', () => {
  it('takes the endings of every feature, .jpe included, in any case', () => {
    expect(IMAGE_EXTENSIONS).toEqual(['.png', '.jpg', '.jpeg', '.jpe', '.webp', '.gif', '.avif', '.tif', '.tiff', '.psd', '.svg'])
    expect(['a.JPG', 'b.psd', 'c.tiff', 'd.jpe', 'shoot/e.PNG', 'notes.txt', '.png', 'png'].map(isImageName)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false
    ])
    expect(imageMimeOf('x.jpe')).toBe('image/jpeg')
    expect(imageMimeOf('x.svg')).toBe('image/svg+xml')
    expect(imageMimeOf('x.exe')).toBeNull()
  })
})
