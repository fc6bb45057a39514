import { existsSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { writeFileAtomic } from '../engine/file-helpers'
import type { PreviewRequest } from '../engine/public'
import type { JobFraming } from '../engine/ports'
import type { ItemRecord } from './store'

/** Images the list and the before/after view show for an item. */
// The preview kinds are the shared contract's (transports check them too).
export { isPreviewKind, PREVIEW_KINDS, type PreviewKind } from '../../shared/previews'
import type { PreviewKind } from '../../shared/previews'

/** Long edge of the before/after images: enough to zoom in a few times on a screen. */
const VIEW_EDGE = 2400
const THUMB_EDGE = 112
/** Results sharp reads directly, preferred for display when an item wrote several files. */
const RASTERS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.tiff', '.tif'])
/** Results read by their composite image in the sandbox (the flat image the PSD writer stores). */
const COMPOSITES = new Set(['.psd', '.psb'])

/** The result an item's after views show: a raster when there is one, else a PSD's composite. */
export function displayedResult(outputs: readonly string[]): string | null {
  const ext = (p: string): string => extname(p).toLowerCase()
  return outputs.find((p) => RASTERS.has(ext(p))) ?? outputs.find((p) => COMPOSITES.has(ext(p))) ?? null
}

/** Renders a display version of a file; the engine's decode sandbox (inputs are untrusted). */
export type RenderPreview = (request: PreviewRequest) => Promise<Buffer>

/**
 * Renders thumbnails and display versions (WebP, alpha kept) of items' inputs and results,
 * cached in the data folder per batch. Browsers cannot show TIFF, PSD or a 50-megapixel
 * original in a list of thousands, hence these. Rendering happens in the decode sandbox, with
 * the same SVG cleaning and limits as a job's decode: an input is untrusted.
 */
export class Previews {
  private readonly pending = new Map<string, Promise<string | null>>()

  constructor(
    private readonly root: string,
    private readonly renderPreview: RenderPreview
  ) {}

  /**
   * The cached file for `kind`, made on first use; null when its source is gone (input of a
   * swept upload) or not made yet (result of a running job). `frame`: how the item's job framed
   * its subject; the before view then places the original the same way, so that a cropping
   * preset's result is compared with the same framing.
   */
  async file(item: ItemRecord, kind: PreviewKind, inputPath: string | null, frame: JobFraming | null = null): Promise<string | null> {
    const source = kind.endsWith('before') ? inputPath : displayedResult(item.outputs)
    if (!source || !existsSync(source)) return null
    const target = join(this.root, item.batchId, `${item.id}-${kind}-${item.jobId ?? 'none'}.webp`)
    if (existsSync(target)) return target
    const running = this.pending.get(target)
    if (running) return running
    const made = this.render(source, target, kind, kind === 'before' ? frame : null).finally(() => this.pending.delete(target))
    this.pending.set(target, made)
    return made
  }

  async removeBatch(batchId: string): Promise<void> {
    await rm(join(this.root, batchId), { recursive: true, force: true })
  }

  private async render(source: string, target: string, kind: PreviewKind, frame: JobFraming | null): Promise<string | null> {
    try {
      const thumb = kind.startsWith('thumb')
      const bytes = await this.renderPreview({
        path: source,
        edge: thumb ? THUMB_EDGE : VIEW_EDGE,
        quality: thumb ? 80 : 90,
        ...(frame && { frame })
      })
      await mkdir(join(target, '..'), { recursive: true })
      await writeFileAtomic(target, bytes)
      return target
    } catch {
      return null // an unreadable source: the list shows a placeholder
    }
  }
}
