/**
 * Results that leave the app, over the app API of `clipdesk serve` (real sockets, a real batch
 * run by the real model, real files): a signed download of one written file and a streamed zip
 * of the batch with its report, checked by Python's zipfile; the refusals with their status and code (bad
 * signature, unknown item, a file not done, a link or a pipe put in place of a result); and the
 * app host's Open with… / Show in folder handlers, which only ever hand out a written plain file.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BatchSummary } from '../src/shared/batches'
import { createResultHandlers } from '../src/main/app-api/results'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { signedPreviewAddress } from '../src/main/http/app-bridge'
import { signedDownloadAddress } from '../src/main/http/app-downloads'
import type { HttpListener } from '../src/main/http/server'
import { CLIPPING, settled, until } from './helpers/batches'
import { tempDir } from './helpers/engine'
import { startAppServer } from './helpers/app-server'
import { scenePng, tinyPng } from './helpers/fixtures'

let root: string
let engine: Engine
let batches: BatchService
let http: HttpListener
let owner: string
let batch: BatchSummary
let items: { id: string; name: string; outputs: string[] }[]
const destination = (): string => join(root, 'out')

beforeAll(async () => {
  root = tempDir('clipdesk-results-')
  engine = new Engine({ dataDir: join(root, 'data') })
  engine.start()
  batches = new BatchService(engine)
  batches.start()
  ;({ http } = await startAppServer(root, engine, batches, {
    host: { effective: { dataDir: join(root, 'data'), outputDir: destination() }, downloads: signedDownloadAddress(engine) }
  }))
  owner = engine.createKey({ credits: null, name: 'owner', admin: true }).key

  const photos = join(root, 'photos')
  mkdirSync(join(photos, 'day1'), { recursive: true })
  writeFileSync(join(photos, 'ball.png'), await scenePng())
  writeFileSync(join(photos, 'day1', 'dot.png'), await tinyPng(64, 48))
  batch = await batches.create({ request: CLIPPING, destination: destination() })
  await batches.add(batch.id, [{ path: photos }])
  batch = await until(batches, batch.id, settled)
  items = batches.detail(batch.id, signedPreviewAddress(engine)).items
})

afterAll(async () => {
  await http.close()
  await batches.stop()
  await engine.stop()
  rmSync(root, { recursive: true, force: true })
})

async function call(method: string, arg: unknown): Promise<Response> {
  return fetch(`${http.url}/api/app/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': owner },
    body: JSON.stringify(arg)
  })
}

const itemNamed = (name: string) => items.find((i) => i.name === name)!

describe('downloads in the browser app', () => {
  it('one written file, by a signed address that needs no key', async () => {
    expect(batch.counts).toMatchObject({ done: 2, failed: 0 })
    const ball = itemNamed('ball.png')
    const res = await call('resultDownload', { batch_id: batch.id, item_id: ball.id })
    expect(res.status).toBe(200)
    const { url, name } = (await res.json()) as { url: string; name: string }
    expect(name).toBe('ball.png')
    const file = await fetch(`${http.url}${url}`)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="ball.png"; filename*=UTF-8''ball.png`)
    expect(Buffer.from(await file.arrayBuffer()).equals(readFileSync(ball.outputs[0]!))).toBe(true)
  })

  it('the whole batch as a zip with the destination’s folders, every file intact', async () => {
    const res = await call('batchDownload', batch.id)
    expect(res.status).toBe(200)
    const { url, name } = (await res.json()) as { url: string; name: string }
    expect(name).toMatch(/\.zip$/)
    const zipped = await fetch(`${http.url}${url}`)
    expect(zipped.status).toBe(200)
    expect(zipped.headers.get('content-type')).toBe('application/zip')
    expect(zipped.headers.get('content-length')).toBeNull() // streamed
    const zipPath = join(root, 'batch.zip')
    writeFileSync(zipPath, Buffer.from(await zipped.arrayBuffer()))
    // Python's zipfile reads the central directory and checks every entry's CRC.
    const listing = execFileSync(
      'python3',
      [
        '-c',
        'import sys, zipfile, json; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(json.dumps({"sizes": {i.filename: i.file_size for i in z.infolist()}, "report": json.loads(z.read("clipdesk-report.json")), "text": z.read("clipdesk-report.txt").decode()}))',
        zipPath
      ],
      {
        encoding: 'utf8'
      }
    )
    const { sizes, report, text } = JSON.parse(listing) as { sizes: Record<string, number>; report: any; text: string }
    expect(sizes).toEqual({
      'clipdesk-report.json': expect.any(Number),
      'clipdesk-report.txt': expect.any(Number),
      'photos/ball.png': readFileSync(itemNamed('ball.png').outputs[0]!).length,
      'photos/day1/dot.png': readFileSync(itemNamed('dot.png').outputs[0]!).length
    })
    // The batch's report rides along: this batch's, as written into its destination when it ended.
    expect(report).toMatchObject({ batch: { id: batch.id }, counts: { images: 2, done: 2, files_written: 2 } })
    expect(report.cutouts.map((c: { input: string }) => c.input).sort()).toEqual(['photos/ball.png', 'photos/day1/dot.png'])
    expect(text).toBe(readFileSync(join(destination(), 'clipdesk-report.txt'), 'utf8'))
  })

  it('refuses a bad signature (403), an unknown file (404) and a bad target (422)', async () => {
    const ball = itemNamed('ball.png')
    const { url } = (await (await call('resultDownload', { batch_id: batch.id, item_id: ball.id })).json()) as { url: string }
    const forged = await fetch(`${http.url}${url.replace(/sig=[^&]+/, 'sig=00')}`)
    expect(forged.status).toBe(403)
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('invalid_signature')
    const other = await fetch(`${http.url}${url.replace('/0?', '/1?')}`)
    expect(other.status).toBe(403) // the signature names the file number too
    const unknown = await call('resultDownload', { batch_id: batch.id, item_id: '00000000-0000-4000-8000-000000000000' })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found')
    // A validly signed address of an item that does not exist (deleted with its batch): 404.
    const gone = await fetch(`${http.url}${signedDownloadAddress(engine).file('00000000-0000-4000-8000-000000000000', 0)}`)
    expect(gone.status).toBe(404)
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('not_found')
    const beyond = await call('resultDownload', { batch_id: batch.id, item_id: ball.id, output: 3 })
    expect(beyond.status).toBe(404)
    const bad = await call('resultDownload', { batch_id: batch.id, item_id: ball.id, output: -1 })
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { error: { code: string; details: { field: string }[] } }).error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'target.output' }]
    })
  })

  it('never reads through a link or a pipe put in place of a result (422), and says a gone file is gone (404)', async () => {
    const dot = itemNamed('dot.png')
    const path = dot.outputs[0]!
    const kept = readFileSync(path)
    const { url } = (await (await call('resultDownload', { batch_id: batch.id, item_id: dot.id })).json()) as { url: string }
    try {
      unlinkSync(path)
      writeFileSync(join(root, 'private.txt'), 'not a result')
      symlinkSync(join(root, 'private.txt'), path)
      const linked = await fetch(`${http.url}${url}`)
      expect(linked.status).toBe(422)
      expect(((await linked.json()) as { error: { code: string } }).error.code).toBe('validation_failed')
      const asked = await call('resultDownload', { batch_id: batch.id, item_id: dot.id })
      expect(asked.status).toBe(422)

      unlinkSync(path)
      expect(spawnSync('mkfifo', [path]).status).toBe(0)
      const piped = await fetch(`${http.url}${url}`) // answered at once, not left waiting for a writer
      expect(piped.status).toBe(422)

      unlinkSync(path)
      const gone = await fetch(`${http.url}${url}`)
      expect(gone.status).toBe(404)
    } finally {
      rmSync(path, { force: true })
      writeFileSync(path, kept)
    }
  })

  it('in the desktop app, Open with… and Show in folder get the written file; a download is refused (409)', async () => {
    const opened: string[] = []
    const shown: string[] = []
    const host = {
      openWith: async (p: string) => {
        opened.push(p)
        return ''
      },
      showInFolder: (p: string) => void shown.push(p)
    }
    const handlers = createResultHandlers(batches, host)
    const ball = itemNamed('ball.png')
    const target = { batch_id: batch.id, item_id: ball.id }
    expect(await handlers.resultOpenWith(target)).toEqual({ opened: true, path: ball.outputs[0] })
    expect(await handlers.resultShowInFolder(target)).toEqual({ opened: true, path: ball.outputs[0] })
    expect(await handlers.dragFile(target)).toBe(ball.outputs[0])
    expect(opened).toEqual([ball.outputs[0]])
    expect(shown).toEqual([ball.outputs[0]])
    await expect(handlers.resultDownload(target)).rejects.toMatchObject({ code: 'conflict' })
    // The browser app cannot open an application on the server's desktop.
    const browser = await call('resultOpenWith', target)
    expect(browser.status).toBe(409)
    expect(((await browser.json()) as { error: { code: string } }).error.code).toBe('conflict')
  })
})
