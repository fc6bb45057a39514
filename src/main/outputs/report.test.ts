import { describe, expect, it } from 'vitest'
import { LIKELY_WRONG, WORTH_A_LOOK } from '../../shared/review'
import { reportCutouts, reportText, toCheckSummary, type RunReport } from './report'

const done = [
  { input: 'ball.png', uncertainty: 0.05 },
  { input: 'girl.jpg', uncertainty: 0.999 },
  { input: 'cat.jpg', uncertainty: WORTH_A_LOOK },
  { input: 'fixed.jpg', uncertainty: LIKELY_WRONG, touchUps: 1 },
  { input: 'old.jpg', uncertainty: null }
]

describe("a report's cutouts and their levels", () => {
  it('lists every scored cutout, most uncertain first, with its level; a touched-up one has none and is not to check', () => {
    expect(reportCutouts(done)).toEqual([
      { input: 'girl.jpg', uncertainty: 0.999, review: 'likely_wrong', to_check: true },
      { input: 'fixed.jpg', uncertainty: LIKELY_WRONG, review: null, to_check: false, touched_up: true },
      { input: 'cat.jpg', uncertainty: WORTH_A_LOOK, review: 'worth_a_look', to_check: true },
      { input: 'ball.png', uncertainty: 0.05, review: null, to_check: false }
    ])
  })

  it('says how many are to check at each level, in words', () => {
    const cutouts = reportCutouts(done)
    expect(toCheckSummary(cutouts)).toBe('2 cutouts to check: 1 likely wrong, 1 worth a look')
    expect(toCheckSummary(cutouts.filter((c) => c.review !== 'worth_a_look'))).toBe('1 cutout to check: 1 likely wrong')
    expect(toCheckSummary(cutouts.filter((c) => c.review === null))).toBe('0 cutouts to check')
    const report: RunReport = {
      started_at: 's',
      finished_at: 'f',
      settings: { mode: 'clipping', format: 'png' },
      outcome: 'Done: all 5 files',
      counts: {},
      failed: [],
      not_images: [],
      warnings: [],
      cutouts
    }
    const text = reportText('clipdesk process', 'summary', report)
    expect(text).toContain('2 cutouts to check: 1 likely wrong, 1 worth a look — look at them first\n')
    expect(text).toContain(
      `To check (most uncertain first):\n  girl.jpg: Likely wrong · 0.99\n  cat.jpg: Worth a look · ${WORTH_A_LOOK.toFixed(2)}\n`
    )
    expect(text).not.toContain('fixed.jpg')
  })

  it('names the photos that got a second look, with their views and why', () => {
    const cutouts = reportCutouts([
      { input: 'ball.png', uncertainty: 0.05 },
      { input: 'tiny.jpg', uncertainty: 0.2, secondLook: { views: 4, reason: 'empty' } },
      { input: 'far.jpg', uncertainty: 0.1, secondLook: { views: 2, reason: 'small' } }
    ])
    expect(cutouts.find((c) => c.input === 'tiny.jpg')!.second_look).toEqual({ views: 4, reason: 'empty' })
    expect(cutouts.find((c) => c.input === 'ball.png')).not.toHaveProperty('second_look')
    const text = reportText('clipdesk process', 'summary', {
      started_at: 's',
      finished_at: 'f',
      settings: { mode: 'clipping', format: 'png' },
      outcome: 'Done: all 3 files',
      counts: {},
      failed: [],
      not_images: [],
      warnings: [],
      cutouts
    })
    expect(text).toContain(
      'Second look:\n  tiny.jpg: 4 more views: the first look found no subject\n  far.jpg: 2 more views: the subject was small\n'
    )
  })
})
