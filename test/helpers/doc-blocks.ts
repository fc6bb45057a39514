/**
 * Reading the pages' code blocks and the files their examples make (test/docs-examples.test.ts):
 * the curl examples of a page, a comment in a line of shell, a PSD's size and its subject's box.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readPsd, type Layer } from 'ag-psd'
import { expect } from 'vitest'

export const ROOT = new URL('../..', import.meta.url).pathname

export interface Example {
  page: string
  line: number
  text: string
}

/** The fenced code blocks of a page that run curl, with the line each starts on. */
export function curlExamples(page: string): Example[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n')
  const out: Example[] = []
  let start = -1
  for (const [i, line] of lines.entries()) {
    if (!line.startsWith('```')) continue
    if (start < 0) {
      start = i
      continue
    }
    const text = lines.slice(start + 1, i).join('\n')
    if (text.split('\n').some((l) => /^\s*(\S+=\$\()?curl /.test(l))) out.push({ page, line: start + 1, text })
    start = -1
  }
  return out
}

/** Width and height of a PSD file, from its header. */
export function psdSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 4).toString('latin1')).toBe('8BPS')
  return { width: bytes.readUInt32BE(18), height: bytes.readUInt32BE(14) }
}

/** The box of a layered PSD's "Subject" layer mask where it is over half opaque, in canvas pixels. */
export function subjectBox(bytes: Buffer): { left: number; top: number; right: number; bottom: number } {
  const psd = readPsd(bytes, { useImageData: true, skipCompositeImageData: true, skipThumbnail: true })
  const mask = psd.children!.find((l: Layer) => l.name === 'Subject')!.mask!
  const m = mask.imageData!
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity }
  for (let y = 0; y < m.height; y++)
    for (let x = 0; x < m.width; x++) {
      if (m.data[(y * m.width + x) * 4]! <= 127) continue
      const [cx, cy] = [x + (mask.left ?? 0), y + (mask.top ?? 0)]
      box.left = Math.min(box.left, cx)
      box.top = Math.min(box.top, cy)
      box.right = Math.max(box.right, cx + 1)
      box.bottom = Math.max(box.bottom, cy + 1)
    }
  return box
}

/** Where a line of shell has a comment (`#` at a word's start, outside quotes), or -1. */
export function commentAt(line: string): number {
  let quote: string | null = null
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quote) {
      if (ch === quote) quote = null
    } else if (ch === "'" || ch === '"') quote = ch
    else if (ch === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) return i
  }
  return -1
}
