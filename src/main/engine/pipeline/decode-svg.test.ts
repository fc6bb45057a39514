import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { neutraliseSvg, prepareSvg } from './decode-svg'

describe('neutraliseSvg', () => {
  it.each([
    ['<image href="http://example.com/a.png"/>', '<image href="data:,"/>'],
    ["<image xlink:href='file:///etc/passwd'/>", '<image xlink:href="data:,"/>'],
    ['<use HREF = "other.svg#a"/>', '<use HREF = "data:,"/>'],
    ['<xi:include href="/etc/hostname" parse="text"/>', '<xi:include href="data:," parse="text"/>'],
    ['<?xml-stylesheet type="text/css" href="http://x/s.css"?>', '<?xml-stylesheet type="text/css" href="data:,"?>'],
    ['<rect style="fill:url(http://x/p.svg#g)"/>', '<rect style="fill:url(#none)"/>'],
    ["<rect fill=\"url('//x/p.svg#g')\"/>", '<rect fill="url(#none)"/>'],
    ['<style>@import url(http://x/a.css); @IMPORT "b.css";</style>', '<style>@blocked-import url(#none); @blocked-import "b.css";</style>'],
    ['<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>', '<!DOCTYPE svg [<!ENTITY x "">]>'],
    ['<!DOCTYPE svg [<!ENTITY % p PUBLIC "-//A//B" "http://x/p.dtd">]>', '<!DOCTYPE svg [<!ENTITY % p "">]>'],
    ['<!ENTITY img SYSTEM "http://x/i.png" NDATA png>', '<!ENTITY img "">']
  ])('makes %s inert', (input, output) => {
    expect(neutraliseSvg(input)).toBe(output)
  })

  it.each([
    '<use href="#a"/>',
    '<image xlink:href="data:image/png;base64,AAAA"/>',
    '<rect fill="url(#grad)"/>',
    '<rect style="fill: url( \'#grad\' )"/>',
    '<!DOCTYPE svg [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]>',
    '<text>no references here</text>'
  ])('keeps internal reference %s', (input) => {
    expect(neutraliseSvg(input)).toBe(input)
  })

  it('no external href or url() survives, whatever the value', () => {
    const value = fc.string({ unit: fc.constantFrom('h', 't', 'p', ':', '/', '.', 'a', '#', 'd', '&', ';', ' ', '\\', '%') })
    fc.assert(
      fc.property(value, value, (href, url) => {
        const out = neutraliseSvg(`<svg><image href="${href}"/><rect style="fill:url(${url.replace(/[)'"]/g, '')})"/></svg>`)
        for (const m of out.matchAll(/href="([^"]*)"/g)) expect(m[1]!.trim().startsWith('#') || m[1] === 'data:,' || /^data:/i.test(m[1]!.trim())).toBe(true)
        for (const m of out.matchAll(/url\(([^)]*)\)/g)) expect(/^\s*(#|data:)/i.test(m[1]!)).toBe(true)
      })
    )
  })
})

describe('prepareSvg', () => {
  it('inflates svgz, then neutralises', () => {
    const out = prepareSvg(gzipSync('<svg><image href="http://x/a.png"/></svg>'), 1024)
    expect(out?.toString()).toBe('<svg><image href="data:,"/></svg>')
  })

  it('refuses svgz that inflates past the limit, or is not gzip', () => {
    expect(prepareSvg(gzipSync(Buffer.alloc(4096, 32)), 1024)).toBeNull()
    expect(prepareSvg(Buffer.from([0x1f, 0x8b, 0, 0]), 1024)).toBeNull()
  })
})
