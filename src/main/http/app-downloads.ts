/**
 * Downloads of the browser app (`clipdesk serve`): one written file of a batch, or every file of
 * a batch as one zip. The addresses are signed like preview addresses (an `<a download>` sends no
 * API key) and short-lived; the app asks for them with `resultDownload` / `batchDownload`.
 *
 * - `GET /api/app/download/<item>/<n>?expires=&sig=`: the item's n-th written file, as it is.
 * - `GET /api/app/download-batch/<batch>.zip?expires=&sig=`: a zip streamed file by file (stored,
 *   not deflated: the images are compressed already), never held in memory whole; each file is
 *   opened only when its turn comes. An ended batch's report (`clipdesk-report.json`, `.txt`) leads.
 *
 * Files are read through `openResult` (the writer's no-follow opener): a link, pipe or device put in place of a result is
 * refused (422), never followed or waited on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { posix } from 'node:path'
import type { Readable } from 'node:stream'
import { ZipFile } from 'yazl'
import type { AppFiles } from '../app-api/files'
import { openResult, type DownloadAddress } from '../app-api/results'
import type { Engine } from '../engine/engine'
import { ApiError } from '../engine/errors'

const ONE_HOUR = 3600
const FILE_PATH = /^\/api\/app\/download\/([0-9a-f-]{36})\/([0-9]{1,2})$/
const BATCH_PATH = /^\/api\/app\/download-batch\/([0-9a-f-]{36})\.zip$/

/** Signs download addresses for the app API (the server host only). */
export function signedDownloadAddress(engine: Engine): DownloadAddress {
  const signed = (subject: string, purpose: string): string => {
    const expires = Math.floor(Date.now() / 1000) + ONE_HOUR
    return `expires=${expires}&sig=${engine.signAddress(subject, purpose, expires)}`
  }
  return {
    file: (itemId, output) => `/api/app/download/${itemId}/${output}?${signed(itemId, `download-${output}`)}`,
    batch: (batchId) => `/api/app/download-batch/${batchId}.zip?${signed(batchId, 'download-batch')}`
  }
}

/** A file name for Content-Disposition: the ASCII fallback and the UTF-8 form (RFC 6266). */
function disposition(name: string): string {
  const base = posix.basename(name)
  const ascii = base.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`
}

function verified(engine: Engine, url: URL, subject: string, purpose: string): void {
  const expires = Number(url.searchParams.get('expires'))
  if (!engine.verifyAddress(subject, purpose, expires, url.searchParams.get('sig') ?? '')) {
    throw new ApiError('invalid_signature', 'The download address is not validly signed, or it expired.')
  }
}

/** Answers a download request; false when the path is none of ours. */
export async function handleDownload(
  opts: { engine: Engine; files: AppFiles },
  _req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  allow: (methods: string) => void
): Promise<boolean> {
  const file = FILE_PATH.exec(url.pathname)
  if (file) {
    allow('GET')
    const [, itemId, n] = file as unknown as [string, string, string]
    verified(opts.engine, url, itemId, `download-${n}`)
    const found = opts.files.writtenFile(itemId, Number(n))
    if (!found) throw new ApiError('not_found', 'There is no such file.')
    const { handle, size } = await openResult(found.path, found.name)
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': size,
      'Content-Disposition': disposition(found.name),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff'
    })
    const stream = handle.createReadStream()
    stream.on('error', () => res.destroy()).pipe(res)
    res.on('close', () => stream.destroy())
    return true
  }

  const batch = BATCH_PATH.exec(url.pathname)
  if (batch) {
    allow('GET')
    const batchId = batch[1]!
    verified(opts.engine, url, batchId, 'download-batch')
    const { files, name, reports } = opts.files.batchFiles(batchId)
    if (files.length === 0) throw new ApiError('conflict', 'This batch has no written files yet.')
    const zip = new ZipFile()
    // The batch's report beside its files, as in the destination (made from the batch's records).
    for (const r of reports) zip.addBuffer(Buffer.from(r.text), r.name)
    let aborted = false
    const open = new Set<Readable>()
    for (const f of files) {
      zip.addReadStreamLazy(f.name, { compress: false }, (cb) => {
        if (aborted) return cb(new Error('download ended'), undefined as never)
        openResult(f.path, f.name).then(
          ({ handle }) => {
            const stream = handle.createReadStream()
            open.add(stream)
            stream.once('close', () => open.delete(stream))
            cb(null, stream)
          },
          (err: Error) => cb(err, undefined as never)
        )
      })
    }
    zip.end()
    res.writeHead(200, {
      'Content-Type': 'application/zip',
      'Content-Disposition': disposition(`${name || 'batch'}.zip`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff'
    })
    // A file that went (or became a link) after the listing ends the download unfinished: the
    // browser shows it failed rather than a zip that silently lacks it.
    zip.on('error', () => res.destroy())
    zip.outputStream.pipe(res)
    // A client that goes away: the file being read is closed and no other is opened.
    res.on('close', () => {
      if (res.writableFinished) return
      aborted = true
      zip.outputStream.unpipe(res)
      for (const stream of open) stream.destroy()
    })
    return true
  }
  return false
}
