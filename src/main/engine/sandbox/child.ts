/**
 * Entry of a decode sandbox process: decodes, probes and renders previews of untrusted images,
 * and composes and encodes a job's outputs, for the engine, one request at a time (see `pool.ts`
 * for why a process).
 *
 * It watches its own memory and exits with `MEMORY_EXIT_CODE` past the limit it was given; the
 * engine also watches it from outside and kills it on timeout, so a hang or a bomb ends here.
 */
import { readdirSync } from 'node:fs'
import os from 'node:os'
import sharp from 'sharp'
import { asBuffer } from '../as-buffer'
import { JobFailure } from '../errors'
import { decodeImage, probeImage } from '../pipeline/decode/decode'
import { decodeHint } from '../pipeline/guide/hint-decode'
import { srgbToNative } from '../pipeline/metadata/native-colour'
import { renderToFiles, type RenderInput } from '../pipeline/compose/render'
import { renderPreview } from './preview-render'
import { MEMORY_EXIT_CODE, type SandboxRequest, type ToChild, type ToParent } from './protocol'

const memoryLimit = Number(process.env.CLIPDESK_SANDBOX_MEMORY_BYTES) || 1024 * 1024 * 1024
lowerPriority(Number(process.env.CLIPDESK_SANDBOX_NICE) || 0)

/**
 * Yields the CPU to the engine (a render pool's processes): on Linux the nice value is per
 * thread, so every thread there is now is lowered, and the threads started later (libvips's,
 * the thread pool's) inherit it from them; elsewhere it is the whole process's.
 */
function lowerPriority(nice: number): void {
  if (nice <= 0) return
  try {
    if (process.platform === 'linux') for (const tid of readdirSync('/proc/self/task')) os.setPriority(Number(tid), nice)
    else os.setPriority(nice)
  } catch {
    // Not allowed in this environment: normal priority then.
  }
}
// Nothing is ever decoded twice in one process: libvips' cache would only hold memory.
sharp.cache(false)

function send(message: ToParent): void {
  // The engine may be gone (a command that ended at once while this process started ahead of
  // it): with a callback a failed send is passed to it rather than thrown; 'disconnect' ends this process.
  if (process.connected) process.send?.(message, undefined, undefined, () => undefined)
}

// libvips works on its own threads, so this timer keeps running while a decode is under way.
setInterval(() => {
  if (process.memoryUsage.rss() > memoryLimit) process.exit(MEMORY_EXIT_CODE)
}, 50).unref()

async function handle(request: SandboxRequest): Promise<unknown> {
  switch (request.op) {
    case 'decode':
      return decodeImage(Buffer.from(request.bytes), { maxPixels: request.maxPixels, memoryBytes: memoryLimit })
    case 'probe':
      return probeImage(Buffer.from(request.bytes), { maxPixels: request.maxPixels })
    case 'decode-hint':
      return decodeHint({ ...request.request, bytes: Buffer.from(request.request.bytes) })
    case 'preview':
      return renderPreview(request.request, request.maxPixels)
    case 'to-native': {
      const { target } = request
      return srgbToNative(Buffer.from(request.rgba), request.width, request.height, {
        ...target,
        icc: target.icc ? Buffer.from(target.icc) : null
      })
    }
    case 'render':
      // The input's profile is converted into here, in this process, like every untrusted profile.
      return renderToFiles(renderInputBuffers(request.input), request.dir, { toNative: srgbToNative })
  }
}

/** The request's byte arrays as Buffers (a message may carry them as plain Uint8Arrays). */
function renderInputBuffers(input: RenderInput): RenderInput {
  const { image, alpha } = input
  const metadata = image.metadata && {
    ...image.metadata,
    icc: image.metadata.icc && asBuffer(image.metadata.icc),
    iptc: image.metadata.iptc && asBuffer(image.metadata.iptc),
    iptcWithGps: image.metadata.iptcWithGps && asBuffer(image.metadata.iptcWithGps)
  }
  const native = image.native && { ...image.native, data: asBuffer(image.native.data) }
  return {
    ...input,
    image: { ...image, data: asBuffer(image.data), native, metadata },
    alpha: { ...alpha, alpha: asBuffer(alpha.alpha), foreground: asBuffer(alpha.foreground) }
  }
}

process.on('message', (message: ToChild) => {
  handle(message.request).then(
    (value) => send({ type: 'result', id: message.id, value, rss: process.memoryUsage.rss() }),
    (err: unknown) => {
      const failure = err instanceof JobFailure ? err : null
      send({
        type: 'failure',
        id: message.id,
        reason: failure?.reason ?? 'pipeline_error',
        message: err instanceof Error ? err.message : String(err),
        rss: process.memoryUsage.rss()
      })
    }
  )
})
// The engine is gone: nothing left to do.
process.on('disconnect', () => process.exit(0))
// A Ctrl-C in a terminal reaches every process of the command, this one too; the engine that
// started it decides when it ends (its jobs stopped as cancelled, then 'disconnect'), so that a
// photo being decoded at Ctrl-C is stopped, not failed as unreadable.
process.on('SIGINT', () => undefined)
send({ type: 'ready' })
