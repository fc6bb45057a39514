/**
 * Money follows results (docs/api.md §3): a `/v1.0/removebg` call that remove.bg answers at no
 * charge (`unknown_foreground`: a photo with no subject; `invalid_bg_image`: a background whose
 * header reads but whose pixels do not) must leave the balance as it was AND no result behind.
 * For each: the key's balance before and after (`/v1.0/account`), the job as `/api/v1/jobs` and
 * `/api/v1/status` list it, whether a result address is given, and whether the job's result
 * folder is still in the data folder. A plain `/api/v1` upload of the same empty photo, which
 * keeps its charge and its result, is the control.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import sharp from 'sharp'

/** A PNG whose signature and IHDR are right and whose image data is junk. */
function junkBodyPng(width, height) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write(type, 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
    return Buffer.concat([head, data, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  const junk = Buffer.alloc(4096).map((_, i) => (i * 73 + 41) & 0xff)
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', junk), chunk('IEND', Buffer.alloc(0))])
}

export default async function refundProbe(ctx) {
  const base = () => ctx.server.base
  const flat = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()
  const subject = await sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><rect width="160" height="120" fill="#8ab"/><circle cx="80" cy="60" r="35" fill="#c33"/></svg>'
    )
  )
    .png()
    .toBuffer()
  const form = (files) => {
    const f = new FormData()
    for (const [name, bytes] of Object.entries(files)) f.append(name, new Blob([bytes], { type: 'image/png' }), `${name}.png`)
    return f
  }
  const balance = async (key) =>
    (await (await fetch(`${base()}/v1.0/account`, { headers: { 'X-Api-Key': key } })).json()).data.attributes.credits.total
  const lastJob = async (key) => (await (await fetch(`${base()}/api/v1/jobs?limit=1`, { headers: { 'X-Api-Key': key } })).json()).jobs[0]
  const probe = async (name, path, files) => {
    const key = ctx.key(['--credits', '5'])
    const before = await balance(key)
    const res = await fetch(`${base()}${path}`, { method: 'POST', headers: { 'X-Api-Key': key }, body: form(files) })
    const answer = await res.json()
    let job = await lastJob(key)
    // An /api/v1 upload answers at once: wait for its end.
    for (let i = 0; i < 600 && job && !['done', 'failed', 'cancelled'].includes(job.status); i++) {
      await new Promise((r) => setTimeout(r, 100))
      job = await lastJob(key)
    }
    const status = job && (await (await fetch(`${base()}/api/v1/status?job_id=${job.job_id}`, { headers: { 'X-Api-Key': key } })).json())
    const after = await balance(key)
    return {
      input: name,
      answer: `${res.status} ${answer.errors?.[0]?.code ?? answer.error?.code ?? answer.status ?? ''}`.trim(),
      balanceBefore: before,
      balanceAfter: after,
      job: job ? `${job.status}${status?.error?.reason ? ` (${status.error.reason})` : ''}` : 'none',
      resultAddressGiven: Boolean(status?.final_url),
      resultFolderLeft: job ? existsSync(join(ctx.dataDir, 'results', job.job_id)) : false
    }
  }
  const rows = []
  await ctx.ensureServer()
  rows.push(await probe('remove.bg: a photo with no subject (unknown_foreground)', '/v1.0/removebg', { image_file: flat }))
  rows.push(
    await probe('remove.bg: a background whose body is junk (invalid_bg_image)', '/v1.0/removebg', {
      image_file: subject,
      bg_image_file: junkBodyPng(64, 48)
    })
  )
  rows.push(await probe('/api/v1: the same photo with no subject (charged, its result kept)', '/api/v1/upload', { file: flat }))
  return rows
}
