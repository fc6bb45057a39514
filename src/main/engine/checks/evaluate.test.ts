import { describe, expect, it } from 'vitest'
import { parseRuleSet } from '../../../shared/store-rules'
import { BUILTIN_RULE_SETS, builtinRuleSet } from '../../../shared/store-rules/index'
import { evaluate, fillOf } from './evaluate'
import { factsFromFraming, factsFromMask, type FileFacts } from './facts'

const JPEG: FileFacts = { format: 'jpeg', bytes: 100_000, colourSpace: 'srgb', hasAlpha: false }
const amazon = builtinRuleSet('amazon')!

/** A w×h picture of `bg` with a grey box (the product) of `box` and its mask. */
function picture(w: number, h: number, bg: number, box: { x: number; y: number; width: number; height: number }) {
  const rgba = Buffer.alloc(w * h * 4)
  const mask = new Uint8Array(w * h)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const inside = x >= box.x && x < box.x + box.width && y >= box.y && y < box.y + box.height
      rgba.fill(inside ? 90 : bg, (y * w + x) * 4, (y * w + x) * 4 + 3)
      rgba[(y * w + x) * 4 + 3] = 255
      mask[y * w + x] = inside ? 255 : 0
    }
  return { rgba, mask }
}

describe('store rules', () => {
  it('every built-in set names its source on each rule', () => {
    expect(BUILTIN_RULE_SETS.map((s) => s.name)).toEqual(['amazon', 'ebay', 'etsy', 'shopify', 'google'])
    for (const set of BUILTIN_RULE_SETS) {
      expect(set.source).toMatch(/https:\/\//)
      for (const rule of Object.values(set.rules)) expect(rule.source.length).toBeGreaterThan(10)
    }
  })

  it('a hand-written set with mistakes is refused naming each field', () => {
    const r = parseRuleSet({ name: 'Agency!', title: 'Agency', source: 'us', rules: { fill: { min: 1.5, source: 'x' }, colour: {} } })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problems.some((p) => p.startsWith('name:'))).toBe(true)
    expect(r.problems.some((p) => p.startsWith('rules.fill.min:'))).toBe(true)
    expect(r.problems.some((p) => p.includes('colour'))).toBe(true)
  })
})

describe('evaluate', () => {
  it('a product on pure white filling 88 % of a 1200 px square passes Amazon', () => {
    const { rgba, mask } = picture(1200, 1200, 255, { x: 72, y: 100, width: 1056, height: 900 })
    const facts = factsFromMask(JPEG, rgba, 1200, 1200, mask)
    expect(fillOf(facts)).toBeCloseTo(0.88, 2)
    expect(evaluate(amazon, facts)).toEqual({ store: 'amazon', title: 'Amazon', passed: true, failures: [] })
  })

  it('names each broken rule with the fix', () => {
    const { rgba, mask } = picture(800, 800, 230, { x: 160, y: 160, width: 480, height: 480 })
    const facts = factsFromMask({ format: 'png', bytes: 5000, colourSpace: 'srgb', hasAlpha: true }, rgba, 800, 800, mask)
    const check = evaluate(amazon, facts)
    expect(check.passed).toBe(false)
    const reasons = check.failures.map((f) => f.reason)
    expect(reasons).toContain('it has transparent parts; Amazon wants a solid background')
    expect(reasons).toContain('it is 800×800 px; Amazon needs at least 1000 px on the longest side')
    expect(reasons).toContain('the product fills 60 % of the frame; Amazon asks about 85 %')
    expect(reasons).toContain(
      "the background is not white: 0 % of the frame's edges are pure white (RGB 255), 0 % of the rest 250 or lighter"
    )
    expect(check.failures.find((f) => f.rule === 'fill')?.fix).toBe('run with --params amazon')
  })

  it('a subject cut by the frame fails with that reason; a border fails the edge rule', () => {
    const cut = picture(1200, 1200, 255, { x: 100, y: 100, width: 1000, height: 1100 })
    const check = evaluate(amazon, factsFromMask(JPEG, cut.rgba, 1200, 1200, cut.mask))
    expect(check.failures.map((f) => f.reason)).toEqual(["the product is cut by the photo's edge (bottom); Amazon wants the whole product"])
    const framed = picture(1200, 1200, 255, { x: 72, y: 72, width: 1056, height: 1056 })
    for (let x = 0; x < 1200; x++) framed.rgba.fill(0, x * 4, x * 4 + 3) // a black line along the top
    const bordered = evaluate(amazon, factsFromMask(JPEG, framed.rgba, 1200, 1200, framed.mask))
    expect(bordered.failures.map((f) => f.rule)).toEqual(['background'])
  })

  it('after a job: the framing gives the box and the enlargement', () => {
    const { rgba } = picture(1000, 1000, 255, { x: 60, y: 60, width: 880, height: 880 })
    const facts = factsFromFraming(JPEG, rgba, 1000, 1000, {
      source: { x: 0, y: 0, width: 300, height: 300 },
      target: { x: 60, y: 60, width: 880, height: 880 }
    })
    expect(evaluate(amazon, facts).failures).toEqual([
      {
        rule: 'enlargement',
        reason: 'the product had to be enlarged 2.9× (at most 2× for Amazon): the photo is too small',
        fix: 'use a larger original'
      }
    ])
  })
})
