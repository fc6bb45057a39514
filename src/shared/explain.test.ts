import { describe, expect, it } from 'vitest'
import { explainProblem } from './explain'

describe('explainProblem: failures in plain words, the original kept as the detail', () => {
  it.each([
    [
      'the jpeg image cannot be decoded: VipsJpeg: premature end of JPEG image',
      'This JPEG is damaged: it ends early (the file was cut short)'
    ],
    [
      'The image could not be read. (file: not a supported image: Input buffer has corrupt header: gifload_buffer: Unexpected end of GIF source data)',
      'This GIF is damaged: it ends early (the file was cut short)'
    ],
    ['the png image cannot be decoded: vipspng: libpng read error', 'This PNG is damaged: it cannot be read to the end'],
    [
      'The image could not be read. (file: not a supported image: Input buffer has corrupt header: webp: unable to parse image)',
      'This WebP is damaged: its header cannot be read'
    ],
    [
      'The image could not be read. (file: not a supported image: Input buffer contains unsupported image format)',
      'This file is damaged, or is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)'
    ],
    [
      'The file is not an image of a supported type. (file: the bytes are not a PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG image)',
      'This file is not an image Clipdesk reads (PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG)'
    ]
  ])('decoder: %s', (raw, message) => {
    expect(explainProblem(raw)).toEqual({ message, detail: raw })
  })

  it.each([
    [
      "The result could not be written into the destination: EROFS: read-only file system, open '/media/ro/.a.png.1f2e3d4c.clipdesk-part'",
      'The folder is read-only (its disk is mounted read-only): /media/ro'
    ],
    [
      "The result could not be written into the destination: EACCES: permission denied, open '/srv/out/.a.png.1f2e3d4c.clipdesk-part'",
      'The folder is read-only: there is no permission to write in it: /srv/out'
    ],
    [
      "The result could not be written into the destination: ENOSPC: no space left on device, copyfile '/d/results/x/clipping.png' -> '/out/.a.png.00.clipdesk-part'",
      'The disk is full: no space left for /d/results/x'
    ],
    ["ENOTDIR: not a directory, mkdir '/home/me/notes.txt/out'", 'A part of /home/me/notes.txt/out is a file, not a folder'],
    ["The file cannot be read: ENOENT: no such file or directory, open '/in/gone.jpg'", 'The file is no longer there: /in/gone.jpg'],
    [
      "The file cannot be read: EACCES: permission denied, open '/in/locked.jpg'",
      'The file cannot be opened: there is no permission to read it: /in/locked.jpg'
    ]
  ])('file system: %s', (raw, message) => {
    expect(explainProblem(raw)).toEqual({ message, detail: raw })
  })

  it('folds a library message said several times into one detail line', () => {
    const raw = [
      'VipsJpeg: premature end of JPEG image',
      'VipsJpeg: premature end of JPEG image',
      'VipsJpeg: premature end of JPEG image'
    ].join('\n')
    expect(explainProblem(raw)).toEqual({
      message: 'This JPEG is damaged: it ends early (the file was cut short)',
      detail: 'VipsJpeg: premature end of JPEG image'
    })
  })

  it('the side, when known, decides between a file that cannot be read and a folder that cannot be written', () => {
    const raw = "EACCES: permission denied, open '/x/y.png'"
    expect(explainProblem(raw, 'input').message).toBe('The file cannot be opened: there is no permission to read it: /x/y.png')
    expect(explainProblem(raw, 'output').message).toBe('The folder is read-only: there is no permission to write in it: /x')
  })

  it('keeps text it has no better words for, without a detail; an empty text still says something', () => {
    expect(explainProblem('The original file is no longer kept; add it to a batch again.')).toEqual({
      message: 'The original file is no longer kept; add it to a batch again.',
      detail: null
    })
    expect(explainProblem(null).message).toMatch(/not recorded/)
  })
})
