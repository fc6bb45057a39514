import { describe, expect, it } from 'vitest'
import { fileReviewLevel, isToCheck, LIKELY_WRONG, reviewLevel, reviewOf, reviewText, scoreText, TO_CHECK, WORTH_A_LOOK } from './review'

describe('review levels (docs/review.md, "Levels")', () => {
  it('puts a score at "Likely wrong" from LIKELY_WRONG, at "Worth a look" from WORTH_A_LOOK, at none below', () => {
    expect(WORTH_A_LOOK).toBeLessThan(LIKELY_WRONG)
    expect(TO_CHECK).toBe(WORTH_A_LOOK)
    expect(reviewLevel(1)).toBe('likely_wrong')
    expect(reviewLevel(LIKELY_WRONG)).toBe('likely_wrong')
    expect(reviewLevel(LIKELY_WRONG - 0.001)).toBe('worth_a_look')
    expect(reviewLevel(WORTH_A_LOOK)).toBe('worth_a_look')
    expect(reviewLevel(WORTH_A_LOOK - 0.001)).toBeNull()
    expect(reviewLevel(0)).toBeNull()
  })

  it('gives no level to a file without a score (not made by the model, or done before scores)', () => {
    expect(reviewLevel(null)).toBeNull()
    expect(reviewLevel(undefined)).toBeNull()
    expect(reviewLevel(NaN)).toBeNull()
    expect(isToCheck(null)).toBe(false)
  })

  it('calls a file to check at either level, and no longer once it was touched up and saved', () => {
    expect(isToCheck(LIKELY_WRONG)).toBe(true)
    expect(isToCheck(WORTH_A_LOOK)).toBe(true)
    expect(isToCheck(WORTH_A_LOOK - 0.001)).toBe(false)
    expect(fileReviewLevel(0.99, 0)).toBe('likely_wrong')
    expect(fileReviewLevel(0.99, 1)).toBeNull()
    expect(fileReviewLevel(WORTH_A_LOOK, 2)).toBeNull()
  })

  it("gives the status API's review object: the rounded score and that score's level, never disagreeing", () => {
    expect(reviewOf(0.99912)).toEqual({ level: 'likely_wrong', score: 0.999 })
    // Just under the line by less than the rounding: the score shown is on the line, and so is the level.
    expect(reviewOf(LIKELY_WRONG - 0.0002)).toEqual({ level: 'likely_wrong', score: LIKELY_WRONG })
    const below = Math.round((WORTH_A_LOOK - 0.002) * 1000) / 1000
    expect(reviewOf(below)).toEqual({ level: null, score: below })
    expect(reviewOf(0.1234)).toEqual({ level: null, score: 0.123 })
  })

  it('says a level in words with the score beside it, never rounding a score up to a certain 1.00', () => {
    expect(reviewText('likely_wrong', 0.999)).toBe('Likely wrong · 0.99')
    expect(reviewText('worth_a_look', 0.62)).toBe('Worth a look · 0.62')
    expect(scoreText(0.29)).toBe('0.29')
    expect(scoreText(0.995)).toBe('0.99')
    expect(scoreText(1)).toBe('1.00')
  })
})
