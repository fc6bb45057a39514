/**
 * remove.bg's JSON and form bodies parsed in the worker thread: fields back without a prototype,
 * the base64 image taken out and decoded (a `data:` prefix, a form's unescaped "+"), what is not
 * base64 said so, bodies beyond the two workers waiting their turn, and refusals of a body that
 * is no object or repeats a field.
 */
import { describe, expect, it } from 'vitest'
import { parseTextBody } from './text-body'

const image = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7 + 3) & 0xff))
const b64 = image.toString('base64')

describe('parseTextBody', () => {
  it('takes the base64 image out of a JSON body and decodes it; the other fields come back without a prototype', async () => {
    const body = Buffer.from(JSON.stringify({ image_file_b64: `data:image/png;base64,${b64}`, size: 'auto', constructor: 'x' }))
    const parsed = await parseTextBody('json', body, 'image_file_b64')
    expect(parsed.b64).toEqual({ bytes: image })
    expect(Object.getPrototypeOf(parsed.fields)).toBeNull()
    expect({ ...parsed.fields }).toEqual({ size: 'auto', constructor: 'x' })
  })

  it('reads a form body whose client left "+" unescaped', async () => {
    const body = Buffer.from(`size=auto&image_file_b64=${b64.replaceAll('/', '%2F').replaceAll('=', '%3D')}`)
    expect(b64).toContain('+')
    const parsed = await parseTextBody('urlencoded', body, 'image_file_b64')
    expect(parsed.b64).toEqual({ bytes: image })
    expect({ ...parsed.fields }).toEqual({ size: 'auto' })
  })

  it('says what is not base64, and leaves a value that is no string among the fields', async () => {
    expect((await parseTextBody('json', Buffer.from('{"image_file_b64":"ab*c"}'), 'image_file_b64')).b64).toEqual({ error: 'not base64' })
    const number = await parseTextBody('json', Buffer.from('{"image_file_b64":5}'), 'image_file_b64')
    expect(number.b64).toBeUndefined()
    expect(number.fields.image_file_b64).toBe(5)
  })

  it('parses more bodies at once than it has workers, each its own', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => Buffer.from(JSON.stringify({ image_file_b64: b64, size: `s${i}` })))
    const parsed = await Promise.all(bodies.map((b) => parseTextBody('json', b, 'image_file_b64')))
    expect(parsed.map((p) => p.fields.size)).toEqual(['s0', 's1', 's2', 's3', 's4', 's5'])
    for (const p of parsed) expect(p.b64).toEqual({ bytes: image })
  })

  it('refuses a body that is no JSON object, or a form field sent twice, as malformed_request', async () => {
    for (const [kind, text] of [
      ['json', '[1]'],
      ['json', '{"a":'],
      ['urlencoded', 'a=1&a=2']
    ] as const) {
      await expect(parseTextBody(kind, Buffer.from(text), 'image_file_b64')).rejects.toMatchObject({ code: 'malformed_request' })
    }
  })
})
