import { describe, expect, it } from 'vitest'
import { VARIATIONS } from './api'
import { outputNames } from './names'
import { describeJob, MODE_LABEL, VARIATION_FILE_WORD, VARIATION_LABEL, variationFileWord } from './vocabulary'

describe('the designer vocabulary', () => {
  it('names every variation on screen and in file names, each name once', () => {
    for (const v of VARIATIONS) {
      expect(VARIATION_LABEL[v]).toBeTruthy()
      expect(VARIATION_FILE_WORD[v]).toMatch(/^[a-z-]+$/)
    }
    expect(new Set(Object.values(VARIATION_LABEL)).size).toBe(VARIATIONS.length)
    expect(new Set(Object.values(VARIATION_FILE_WORD)).size).toBe(VARIATIONS.length)
    expect(VARIATION_LABEL).toMatchObject({ clipping: 'Cut-out', compose: 'On background', shadowTop: 'With shadow', mask: 'Mask' })
    expect(variationFileWord('something-else')).toBe('something-else')
  })

  it('default names of several files use the file words; the API names stay out of file names', () => {
    const naming = { relPath: 'day1/photo.jpg', template: null, mode: 'background', params: null, date: '2026-01-02', seq: 1 }
    const names = outputNames(naming, [
      { variation: 'compose', ext: 'png' },
      { variation: 'clipping', ext: 'png' },
      { variation: 'shadowTop', ext: 'png' },
      { variation: 'mask', ext: 'png' }
    ])
    expect(names).toEqual(['day1/photo.on-background.png', 'day1/photo.cut-out.png', 'day1/photo.with-shadow.png', 'day1/photo.mask.png'])
    expect(outputNames({ ...naming, template: '{variation}/{name}.{ext}' }, [{ variation: 'clipping', ext: 'webp' }])).toEqual(['day1/cut-out/photo.webp'])
  })

  it('describes a job with the mode labels or the preset, never "preset/params"', () => {
    expect(describeJob({ mode: 'clipping', params: null, output_format: 'png' })).toBe(`${MODE_LABEL.clipping} · PNG`)
    expect(describeJob({ mode: 'background', params: null, output_format: 'jpg' })).toBe('On white background · JPG')
    expect(describeJob({ mode: 'params', params: 'shop-beige', output_format: 'png' }, () => 'Shop Beige')).toBe('Preset Shop Beige · PNG')
    expect(describeJob({ mode: 'params', params: 'shop-beige;size=800', output_format: 'png' })).toBe('Preset shop-beige with changes · PNG')
    expect(describeJob({ mode: 'params', params: 'background=white', output_format: 'webp' })).toBe('Custom settings · WEBP')
  })
})
