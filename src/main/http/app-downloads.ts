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
import type { ServerResponse } from 'node:http'
import { posix } from 'node:path'
import type { Readable } from 'node:stream'
import { ZipFile } from 'yazl'
import type { AppFiles } from '../app-api/files'
import { openResult, type DownloadAddress } from '../app-api/results'
import type { AppBridgePort } from '../engine/ports'
import { ApiError } from './api-error'
import type { Route } from './route-table'
import { idSegment } from './router'

const ONE_HOUR = 3600

/** Signs download addresses for the app API (the server host only). */
export function signedDownloadAddress(engine: AppBridgePort): DownloadAddress {
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

function verified(engine: AppBridgePort, url: URL, subject: string, purpose: string): void {
  const expires = Number(url.searchParams.get('expires'))
  if (!engine.verifyAddress(subject, purpose, expires, url.searchParams.get('sig') ?? '')) {
    throw new ApiError('invalid_signature', 'The download address is not validly signed, or it expired.')
  }
}

/** The two download routes of the app bridge (signed addresses, no key). */
export function downloadRoutes(opts: { engine: AppBridgePort; files: AppFiles }): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/app/download/:item/:n',
      params: { item: idSegment, n: (s) => /^[0-9]{1,2}$/.test(s) },
      audience: 'app',
      key: 'signed',
      handle: ({ res, url, params }) => downloadFile(opts, res, url, params.item!, params.n!)
    },
    {
      method: 'GET',
      path: '/api/app/download-batch/:zip',
      params: { zip: (s) => /^[0-9a-f-]{36}\.zip$/.test(s) },
      audience: 'app',
      key: 'signed',
      handle: ({ res, url, params }) => downloadBatch(opts, res, url, params.zip!.slice(0, -'.zip'.length))
    }
  ]
}

async function downloadFile(
  opts: { engine: AppBridgePort; files: AppFiles },
  res: ServerResponse,
  url: URL,
  itemId: string,
  n: string
): Promise<void> {
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
}

function downloadBatch(opts: { engine: AppBridgePort; files: AppFiles }, res: ServerResponse, url: URL, batchId: string): void {
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
}
