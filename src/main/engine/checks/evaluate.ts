/**
 * One image's facts held against one rule set: each broken rule in plain words, with the fix
 * where Clipdesk has one (docs/store-ready.md). Pure: the same for `clipdesk check`, the check
 * after a job, and the tests.
 */
import type { CheckFailure, RuleSet, StoreCheck } from '../../../shared/store-rules'
import { shareAtLeast, type ImageFacts } from './facts'

const pct = (x: number): string => `${Math.round(x * 100)} %`
const FORMAT_WORDS: Record<string, string> = {
  jpeg: 'JPEG',
  png: 'PNG',
  gif: 'GIF',
  tiff: 'TIFF',
  webp: 'WebP',
  bmp: 'BMP',
  avif: 'AVIF',
  psd: 'PSD',
  svg: 'SVG'
}
const formatWord = (f: string): string => FORMAT_WORDS[f] ?? f.toUpperCase()
const orList = (items: string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`)
const SPACE_WORDS = { srgb: 'sRGB', cmyk: 'CMYK', 'other-rgb': 'an RGB profile other than sRGB', grey: 'greyscale' } as const
const SIDE_ORDER = ['top', 'right', 'bottom', 'left'] as const

/** How much of the frame the subject's box fills, on the axis it fills most (0 without a subject). */
export function fillOf(f: Pick<ImageFacts, 'subject' | 'width' | 'height'>): number {
  return f.subject ? Math.max(f.subject.width / f.width, f.subject.height / f.height) : 0
}

export function evaluate(rules: RuleSet, f: ImageFacts): StoreCheck {
  const store = rules.title
  const fix = rules.preset ? `run with --params ${rules.preset}` : null
  const failures: CheckFailure[] = []
  const r = rules.rules
  const fail = (rule: CheckFailure['rule'], reason: string, withFix: string | null = fix): void => {
    failures.push({ rule, reason, fix: withFix })
  }

  if (r.formats && !(r.formats.allowed as string[]).includes(f.format)) {
    fail('formats', `the file is a ${formatWord(f.format)}; ${store} takes ${orList(r.formats.allowed.map(formatWord))}`)
  }
  if (r.colourSpace && !(r.colourSpace.allowed as string[]).includes(f.colourSpace)) {
    fail(
      'colourSpace',
      `its colours are in ${SPACE_WORDS[f.colourSpace]}; ${store} asks for ${orList(r.colourSpace.allowed.map((s) => SPACE_WORDS[s]))}`
    )
  }
  if (r.noAlpha && f.hasAlpha) fail('noAlpha', `it has transparent parts; ${store} wants a solid background`)
  if (r.fileSize && f.bytes > r.fileSize.maxBytes) {
    const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`
    fail('fileSize', `the file is ${mb(f.bytes)}; ${store} takes at most ${mb(r.fileSize.maxBytes)}`)
  }
  if (r.size) {
    const s = r.size
    const longest = Math.max(f.width, f.height)
    const shortest = Math.min(f.width, f.height)
    const dims = `${f.width}×${f.height} px`
    if (s.minLongest !== undefined && longest < s.minLongest)
      fail('size', `it is ${dims}; ${store} needs at least ${s.minLongest} px on the longest side`)
    if (s.maxLongest !== undefined && longest > s.maxLongest)
      fail('size', `it is ${dims}; ${store} takes at most ${s.maxLongest} px on the longest side`)
    if (s.minShortest !== undefined && shortest < s.minShortest)
      fail('size', `it is ${dims}; ${store} needs at least ${s.minShortest} px on the shortest side`)
    if (s.minWidth !== undefined && f.width < s.minWidth) fail('size', `it is ${dims}; ${store} needs at least ${s.minWidth} px wide`)
    if (s.minHeight !== undefined && f.height < s.minHeight) fail('size', `it is ${dims}; ${store} needs at least ${s.minHeight} px high`)
    if (s.maxMegapixels !== undefined && f.width * f.height > s.maxMegapixels * 1e6)
      fail('size', `it is ${((f.width * f.height) / 1e6).toFixed(1)} megapixels; ${store} takes at most ${s.maxMegapixels}`)
  }
  if (r.enlargement && f.enlargement !== null && f.enlargement > r.enlargement.max + 0.005) {
    const limit = r.enlargement.max <= 1 ? 'no enlargement' : `at most ${r.enlargement.max}×`
    fail(
      'enlargement',
      `the product had to be enlarged ${f.enlargement.toFixed(1)}× (${limit} for ${store}): the photo is too small`,
      'use a larger original'
    )
  }
  const needsSubject = r.fill !== undefined || r.wholeSubject !== undefined
  if (needsSubject && f.subject === null) {
    fail(r.fill ? 'fill' : 'wholeSubject', 'no product was found in the picture', null)
  } else {
    const cutBy = SIDE_ORDER.filter((side) => f.cut[side])
    if (r.wholeSubject && cutBy.length > 0) {
      fail(
        'wholeSubject',
        `the product is cut by the photo's edge (${cutBy.join(', ')}); ${store} wants the whole product`,
        'use a photo that shows the whole product'
      )
    }
    if (r.fill && f.subject) {
      const fill = fillOf(f)
      // Reported to the nearest percent, judged on the same figure the words give.
      const shown = Math.round(fill * 100) / 100
      if (shown < r.fill.min) fail('fill', `the product fills ${pct(fill)} of the frame; ${store} asks about ${pct(r.fill.min)}`)
      else if (r.fill.max !== undefined && shown > r.fill.max)
        fail('fill', `the product fills ${pct(fill)} of the frame; ${store} asks at most ${pct(r.fill.max)}`)
    }
  }
  if (r.background) {
    const b = r.background
    const edge = shareAtLeast(f.border, b.border)
    const behind = shareAtLeast(f.behind, b.behind)
    const white = b.border === 255 ? 'pure white (RGB 255)' : `white (${b.border} or lighter)`
    if (edge < b.share && behind < b.share) {
      fail(
        'background',
        `the background is not white: ${pct(edge)} of the frame's edges are ${white}, ${pct(behind)} of the rest ${b.behind} or lighter`
      )
    } else if (edge < b.share) {
      fail('background', `the edges of the frame are not ${white}, only ${pct(edge)} of them (a border, or a shadow reaching the edge)`)
    } else if (behind < b.share) {
      fail('background', `the background around the product is not white: ${pct(behind)} of it is ${b.behind} or lighter`)
    }
  }
  return { store: rules.name, title: rules.title, passed: failures.length === 0, failures }
}
