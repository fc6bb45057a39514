import { describe, expect, it } from 'vitest'
import { parseParams } from '../../../shared/params'
import { BUILTIN_PRESETS } from '../../../shared/presets'
import { filesFromInput, isImageName, mimeOf } from './files'
import { batchPace, formatDuration, ranOnText, stoppedTitle } from './format'
import { checkForm, EMPTY_FORM, formFromValues, paramsOfForm } from './presetForm'
import { LIKELY_WRONG, WORTH_A_LOOK } from '../../../shared/review'
import { filterCounts, listOrder } from './review'
import { visibleRange } from './virtual'

describe('visibleRange (list windowing)', () => {
  it('renders only the rows in view plus the overscan', () => {
    expect(visibleRange(0, 640, 64, 10_000, 6)).toEqual({ start: 0, end: 16 })
    expect(visibleRange(64 * 5000, 640, 64, 10_000, 6)).toEqual({ start: 4994, end: 5016 })
    expect(visibleRange(64 * 9999, 640, 64, 10_000, 6)).toEqual({ start: 9993, end: 10_000 })
    expect(visibleRange(0, 640, 64, 0)).toEqual({ start: 0, end: 0 })
  })
})

describe("listOrder (the batch list's review filters and sort)", () => {
  const W = WORTH_A_LOOK
  const L = LIKELY_WRONG
  const f = (uncertainty: number | null, touch_ups = 0) => ({ uncertainty, touch_ups })
  // Below both lines, no score, exactly each line, just below each, and a touched-up file that scored "Likely wrong".
  const items = [f(0.05), f(null), f(W), f(L), f(W - 0.001), f(L - 0.001), f(0.99, 1)]
  it('keeps batch order, or shows only the files of a filter', () => {
    expect(listOrder(items, 'all', 'added')).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(listOrder(items, 'to-check', 'added')).toEqual([2, 3, 5])
    expect(listOrder(items, 'likely-wrong', 'added')).toEqual([3])
    expect(listOrder(items, 'worth-a-look', 'added')).toEqual([2, 5])
    // Touched up and saved: out of "to check" and of its level, in its own filter.
    expect(listOrder(items, 'touched-up', 'added')).toEqual([6])
    expect(filterCounts(items)).toEqual({ 'to-check': 3, 'likely-wrong': 1, 'worth-a-look': 2, 'touched-up': 1, 'not-ready': 0 })
  })
  it('shows the files a store check found not ready under "Not ready"', () => {
    const checked = [
      { ...f(0.05), checks: [{ passed: true }] },
      { ...f(0.05), checks: [{ passed: false }] },
      { ...f(0.05), checks: null },
      { ...f(0.05), checks: [{ passed: true }, { passed: false }] }
    ]
    expect(listOrder(checked, 'not-ready', 'added')).toEqual([1, 3])
    expect(filterCounts(checked)['not-ready']).toBe(2)
  })
  it('sorts the most uncertain first, files without a score last, ties in batch order', () => {
    expect(listOrder(items, 'all', 'uncertainty')).toEqual([6, 3, 5, 2, 4, 0, 1])
    expect(listOrder(items, 'to-check', 'uncertainty')).toEqual([3, 5, 2])
    expect(listOrder([], 'to-check', 'uncertainty')).toEqual([])
  })
})

describe('preset form', () => {
  it.each(BUILTIN_PRESETS.map((p) => [p.name, p] as const))('round-trips the built-in %s through the form', (_name, preset) => {
    const params = paramsOfForm(formFromValues(preset.name, preset.description, preset.values))
    const parsed = parseParams(params)
    expect(parsed.ok && parsed.value.values).toEqual(preset.values)
  })

  it('carries the metadata key both ways', () => {
    const form = formFromValues('m', null, { metadata: 'keep-gps' })
    expect(form.metadata).toBe('keep-gps')
    expect(paramsOfForm({ ...form, metadata: 'strip' })).toBe('metadata=strip')
  })

  it('a contact shadow with the default main file: the set the preview runs (test/preset-preview.test.ts)', () => {
    const form = {
      ...EMPTY_FORM,
      background: 'color' as const,
      color: '#F5F5DC',
      shadow: 'top' as const,
      crop: 'subject' as const,
      size: 'box' as const,
      width: '600',
      height: '600',
      margin: '8',
      alpha: 'keep' as const
    }
    expect(paramsOfForm(form)).toBe('background=#F5F5DC;shadow=top;crop=subject;size=600x600;margin=8%;alpha=keep')
  })

  it('margins per side and the framing keys both ways', () => {
    expect(paramsOfForm({ ...EMPTY_FORM, margin: '4,6,8,6' })).toBe('margin=4%,6%,8%,6%')
    expect(paramsOfForm({ ...EMPTY_FORM, margin: '20px, 5%,20,5%', marginUnit: 'px' })).toBe('margin=20px,5%,20px,5%')
    const form = formFromValues('f', null, {
      margin: [
        { unit: 'px', value: 10 },
        { unit: '%', value: 5 },
        { unit: 'px', value: 10 },
        { unit: '%', value: 5 }
      ],
      position: 'left,bottom',
      upscale: 'never'
    })
    expect(paramsOfForm(form)).toBe('margin=10px,5%,10px,5%;position=left,bottom;upscale=never')
    expect(checkForm({ ...EMPTY_FORM, margin: '4,6' })).toEqual({
      margin: 'four sides are top, right, bottom, left (e.g. 4%,6%,8%,6%); got 2 values'
    })
  })

  it('names the offending keys', () => {
    expect(checkForm(EMPTY_FORM)).toEqual({})
    expect(paramsOfForm(EMPTY_FORM)).toBe('')
    const bad = {
      ...EMPTY_FORM,
      size: 'box' as const,
      width: '0',
      margin: '60',
      variations: ['clipping' as const],
      primary: 'compose' as const
    }
    expect(Object.keys(checkForm(bad)).sort()).toEqual(['margin', 'primary', 'size'])
  })
})

describe('a batch while the server cannot be reached', () => {
  it('says Clipdesk stopped with what is left, only while the server is gone and files are left', () => {
    expect(stoppedTitle({ done: 9, waiting: 4, running: 2 }, 15, false)).toBe('Clipdesk stopped: 9 of 15 done, 6 left')
    expect(stoppedTitle({ done: 9, waiting: 4, running: 2 }, 15, true)).toBeNull()
    expect(stoppedTitle({ done: 15, waiting: 0, running: 0 }, 15, false)).toBeNull()
  })
})

describe('batch pace', () => {
  it('gives files per minute and time left once a file ended', () => {
    const counts = { total: 10, done: 2, failed: 0, cancelled: 0 }
    expect(batchPace({ ...counts, done: 0 }, 1000, 61_000)).toBeNull()
    expect(batchPace(counts, 0, 60_000)).toEqual({ perMinute: 2, etaMs: 240_000 })
    expect(formatDuration(240_000)).toBe('4 min 00 s')
  })

  it('counts only the files that ran: 35 stopped files do not make a batch look fast', () => {
    // 9 done in 3 minutes, then 35 cancelled: 3 files/min, not (9 + 35) / 3.
    expect(batchPace({ total: 44, done: 9, failed: 0, cancelled: 35 }, 0, 180_000)).toEqual({ perMinute: 3, etaMs: 0 })
    expect(batchPace({ total: 44, done: 0, failed: 0, cancelled: 35 }, 0, 180_000)).toBeNull()
  })
})

describe('model and device of a result', () => {
  it('reads "model · device", and is absent for results that did not record them', () => {
    expect(ranOnText({ model: 'medium', device: 'cpu' })).toBe('medium · cpu')
    expect(ranOnText({ model: null, device: 'cuda' })).toBe('cuda')
    expect(ranOnText({ model: null, device: null })).toBeNull()
  })
})

describe('files', () => {
  it('takes images by their ending and knows their types', () => {
    expect(['a.JPG', 'b.psd', 'c.tiff', 'notes.txt'].map(isImageName)).toEqual([true, true, true, false])
    expect(mimeOf(new File([], 'x.psd'))).toBe('image/vnd.adobe.photoshop')
    expect(mimeOf(new File([], 'x.bin', { type: 'image/png' }))).toBe('image/png')
  })

  it('keeps the files of a picked folder that are not images, marked, and drops hidden ones', () => {
    const files = [new File([], 'b.png'), new File([], 'notes.txt'), new File([], '.DS_Store'), new File([], 'a.jpg')]
    const picked = filesFromInput(files as unknown as FileList)
    expect(picked.map((p) => [p.relPath, p.notImage ?? false])).toEqual([
      ['a.jpg', false],
      ['b.png', false],
      ['notes.txt', true]
    ])
  })
})

describe('brush strokes', () => {
  it('spaces the points of a drag so that a fast one paints a solid line', async () => {
    const { spaced } = await import('./brush')
    const out = spaced(
      [
        [0, 0],
        [10, 0]
      ],
      2
    )
    expect(out[0]).toEqual([0, 0])
    expect(out.at(-1)).toEqual([10, 0])
    // No gap wider than the step between consecutive points.
    for (let i = 1; i < out.length; i++) expect(out[i]![0] - out[i - 1]![0]).toBeLessThanOrEqual(2)
    expect(spaced([[3, 4]], 1)).toEqual([[3, 4]])
  })
})
