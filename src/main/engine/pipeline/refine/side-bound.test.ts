import { describe, expect, it } from 'vitest'
import { boundToSide } from './side-bound'

describe('boundToSide', () => {
  it('keeps a refined value on the model side of 50 %', () => {
    expect(boundToSide(40, 150)).toBe(128)
    expect(boundToSide(200, 100)).toBe(127)
  })

  it('lets a sure model move less: four times its distance from certainty', () => {
    // p = 236: 19 from 255, so no lower than 236 − 76 = 160.
    expect(boundToSide(130, 236)).toBe(160)
    expect(boundToSide(170, 236)).toBe(170)
    // p = 10: no higher than 10 + 40 = 50.
    expect(boundToSide(90, 10)).toBe(50)
    expect(boundToSide(30, 10)).toBe(30)
  })

  it('leaves moves towards the model side alone, and an unsure model only the 50 % line', () => {
    expect(boundToSide(255, 236)).toBe(255)
    expect(boundToSide(0, 10)).toBe(0)
    expect(boundToSide(128, 200)).toBe(128)
    expect(boundToSide(127, 60)).toBe(127)
  })
})
