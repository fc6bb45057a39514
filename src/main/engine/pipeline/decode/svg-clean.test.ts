import fc from 'fast-check'
import { SaxesParser } from 'saxes'
import { describe, expect, it } from 'vitest'
import { cleanCss, cleanSvg, defineEntities, SvgRefused } from './svg-clean'

const NS = 'xmlns="http://www.w3.org/2000/svg"'

function clean(body: string, head = `<svg ${NS}>`): string {
  return cleanSvg(`${head}${body}</svg>`)
    .text.slice(head.length)
    .replace(/<\/svg>$/, '')
}

describe('cleanSvg', () => {
  it.each([
    ['<image href="http://example.com/a.png"/>', ''],
    ["<image xlink:href='file:///etc/passwd' width='3'/>", ''],
    ['<use href="other.svg#a"/>', '<use></use>'],
    ['<use HREF="#a"/>', '<use></use>'],
    ['<xi:include href="/etc/hostname" parse="text"/>', ''],
    ['<script>alert(1)</script><rect width="2"/>', '<rect width="2"></rect>'],
    ['<foreignObject><div>x</div></foreignObject>', ''],
    ['<feImage href="http://x/y.png"/>', ''],
    ['<rect onload="x()" fill="red"/>', '<rect fill="red"></rect>'],
    ['<rect style="fill:url(http://x/p.svg#g)"/>', '<rect style="fill:none"></rect>'],
    ['<rect fill="url(\'//x/p.svg#g\')"/>', '<rect fill="none"></rect>'],
    ['<rect fill="url(#g)" stroke="url( \'#h\' )"/>', '<rect fill="url(#g)" stroke="url(#h)"></rect>'],
    ['<style>@import url(http://x/a.css); rect{fill:red}</style>', '<style></style>'],
    ['<style>rect{fill:u\\72l(http://x/a)}</style>', '<style></style>'],
    ['<style>rect &gt; g{fill:url(#a)} .b{fill:URL( http://x )}</style>', '<style>rect &gt; g{fill:url(#a)} .b{fill:none}</style>'],
    ['<a href="http://x"><rect width="1"/></a>', '<a><rect width="1"></rect></a>'],
    ['<g><metadata><x/></metadata><sodipodi:namedview/><path d="M0 0" inkscape:label="a"/></g>', '<g><path d="M0 0"></path></g>'],
    ['<text x="1">a &lt; b &amp; c</text>', '<text x="1">a &lt; b &amp; c</text>'],
    ['<text><![CDATA[x < y]]></text>', '<text>x &lt; y</text>']
  ])('%s → %s', (input, output) => {
    expect(clean(input)).toBe(output)
  })

  it('keeps an inline raster image and hands its bytes out', () => {
    const out = cleanSvg(
      `<svg ${NS}><image href="data:image/png;base64,iVBORw0K" width="4"/><image href="data:image/svg+xml;base64,PHN2Zy8+"/></svg>`
    )
    expect(out.text).toBe(`<svg ${NS}><image href="data:image/png;base64,iVBORw0K" width="4"></image></svg>`)
    expect(out.images.map((b) => b.toString('hex'))).toEqual(['89504e470d0a'])
  })

  it('defines plain internal entities, and refuses a document using an external one', () => {
    const head =
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY ns_svg "http://www.w3.org/2000/svg"><!ENTITY x SYSTEM "file:///etc/passwd">]>'
    expect(cleanSvg(`${head}<svg xmlns="&ns_svg;"><rect width="1"/></svg>`).text).toBe(`<svg ${NS}><rect width="1"></rect></svg>`)
    expect(() => cleanSvg(`${head}<svg ${NS}><text>&x;</text></svg>`)).toThrow(SvgRefused)
  })

  it('refuses what is not an SVG document', () => {
    for (const text of ['', 'hello', '<html/>', '<svg><rect></svg>', `<svg ${NS}>${'<g>'.repeat(600)}${'</g>'.repeat(600)}</svg>`]) {
      expect(() => cleanSvg(text)).toThrow(SvgRefused)
    }
  })

  it('cleans CSS with `url(` and 20,000 spaces in linear time (a backtracking regex took minutes)', () => {
    const svg = `<svg ${NS}><style>rect{fill:url(${' '.repeat(20_000)}</style><rect style="fill:url(${' '.repeat(20_000)}x"/></svg>`
    expect(cleanSvg(svg).text).toBe(`<svg ${NS}><style></style><rect></rect></svg>`)
  })

  it('no external reference survives, whatever the document (fast-check)', () => {
    const piece = fc.constantFrom(
      'h',
      't',
      'p',
      ':',
      '/',
      '.',
      'a',
      '#',
      'd',
      ';',
      ' ',
      '(',
      ')',
      'url(',
      'URL(',
      '@import',
      '"',
      "'",
      'data:',
      '\\',
      '&amp;'
    )
    const value = fc.array(piece, { maxLength: 12 }).map((a) => a.join('').replaceAll('"', '&quot;'))
    fc.assert(
      fc.property(value, value, value, (href, css, attr) => {
        const svg = `<svg ${NS} xmlns:xlink="http://www.w3.org/1999/xlink"><image href="${href}"/><use xlink:href="${href}"/><style>r{fill:${css.replaceAll('&quot;', '"')}}</style><rect fill="${attr}" style="stroke:${css}"/></svg>`
        let out: string
        try {
          out = cleanSvg(svg).text
        } catch (err) {
          expect(err).toBeInstanceOf(SvgRefused)
          return
        }
        for (const ref of references(out)) expect(ref.startsWith('#') || ref.startsWith('data:image/')).toBe(true)
      }),
      { numRuns: 500 }
    )
  })
})

describe('cleanCss', () => {
  it('rewrites every non-fragment url() and drops what could hide one', () => {
    expect(cleanCss('a{fill:url(#x)}b{fill:url("http://e")}')).toBe('a{fill:url(#x)}b{fill:none}')
    expect(cleanCss('a{fill:url(#x')).toBeNull()
    expect(cleanCss('@IMPORT "x.css";')).toBeNull()
    expect(cleanCss('a{fill:url(#x y)}')).toBe('a{fill:none}')
  })
})

describe('defineEntities', () => {
  it('takes literal general entities only, bounded', () => {
    const entities: Record<string, string> = {}
    defineEntities(entities, ' svg [ <!ENTITY a "1"> <!ENTITY % p "2"> <!ENTITY b SYSTEM "f"> <!ENTITY c "&a;"> <!ENTITY d \'4\'> ]')
    expect(entities).toEqual({ a: '1', d: '4' })
    const many: Record<string, string> = {}
    defineEntities(many, `[${Array.from({ length: 100 }, (_, i) => `<!ENTITY e${i} "v">`).join('')}]`)
    expect(Object.keys(many)).toHaveLength(64)
  })
})

/** Every href value and CSS url() target in a cleaned document, read back with the parser. */
function references(svg: string): string[] {
  const refs: string[] = []
  const parser = new SaxesParser({ xmlns: false })
  const fromCss = (css: string): void => {
    const lower = css.toLowerCase()
    for (let at = lower.indexOf('url('); at >= 0; at = lower.indexOf('url(', at + 1)) {
      const end = css.indexOf(')', at)
      refs.push(
        css
          .slice(at + 4, end < 0 ? undefined : end)
          .trim()
          .replace(/^["']|["']$/g, '')
      )
    }
    if (lower.includes('@import') || css.includes('\\')) refs.push('css-escape-or-import')
  }
  parser.on('opentag', (tag) => {
    for (const [name, value] of Object.entries(tag.attributes as Record<string, string>)) {
      if (name.endsWith('href')) refs.push(value.trim())
      else fromCss(value)
    }
  })
  parser.on('text', fromCss)
  parser.write(svg).close()
  return refs
}
