/**
 * Writes a done job's results into the batch destination, crash-safe and never over a file
 * that is not the item's own:
 *
 * 1. Names are chosen in one synchronous step (no other item can choose between the check and
 *    the claim): the template or `{name}.{ext}` / `{name}.{variation}.{ext}`, mirroring the
 *    item's folder, then `-1`, `-2`… while the name exists or another pending item chose it.
 *    The choice is recorded in the item (`planned`) before anything is written.
 * 2. Each file is copied to a hidden temp name in the destination folder (made and checked by
 *    its real path) and hard-linked to its name, which fails if the name exists: nothing is
 *    ever replaced, and a name is never half-written.
 *
 * After a crash the same job finishes again with the same names: a name already holding the
 * same bytes is this item's own finished write; a name holding other bytes was taken by
 * someone else meanwhile, and new names are chosen.
 */
import { constants } from 'node:fs'
import { copyFile, link, readFile, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, posix } from 'node:path'
import { resultsToWrite, writesAllVariations } from '../../shared/outputs'
import { containedDir } from '../contained-dir'
import type { Engine } from '../engine/engine'
import { primaryVariation } from '../engine/status-view'
import type { JobRecord } from '../engine/store/jobs'
import { existsOrLink, firstFree } from '../outputs/numbered'
import { dateToken, outputTarget, presetToken, renderTemplate, type TokenValues } from '../watch/template'
import { cleanRelPath, outputPath } from './paths'
import type { BatchRecord, BatchStore, ItemRecord } from './store'

/** Errors of `link` on file systems without hard links: fall back to an exclusive copy. */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])
const ATTEMPTS = 5

class NameTaken extends Error {}

/** Writes the results asked for (the primary alone unless all variations are); returns the paths written. */
export async function copyResults(engine: Engine, store: BatchStore, job: JobRecord, item: ItemRecord, batch: BatchRecord): Promise<string[]> {
  const { destination, request } = batch
  const made = engine.jobs.results(job.id)
  const primary = primaryVariation(job, made.map((r) => r.variation), engine.jobParams.get(job.id)?.primary)
  const results = resultsToWrite(made, primary, writesAllVariations(request.params, request.all_variations))
  const targets = results.map((r) =>
    request.name_template
      ? templatedPath(destination, item.relPath, request.name_template, {
          variation: r.variation,
          ext: r.ext,
          date: dateToken(new Date(job.createdAt)),
          preset: presetToken(request.mode, typeof request.params === 'string' ? request.params : null)
        })
      : outputPath(destination, item.relPath, r.variation, r.ext, results.length > 1)
  )
  const avoid = new Set<string>()
  let planned = item.planned?.length === results.length ? item.planned : null
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (!planned) {
      const others = store.plannedByOthers(item.id)
      const chosen: string[] = []
      for (const target of targets) {
        chosen.push(firstFree(target, (c) => chosen.includes(c) || others.has(c) || avoid.has(c) || existsOrLink(c)))
      }
      planned = chosen
      store.updateItem(item.id, { planned }, { jobId: job.id })
    }
    try {
      for (let i = 0; i < results.length; i++) await placeNew(results[i]!.path, planned[i]!, destination)
      return planned
    } catch (err) {
      if (!(err instanceof NameTaken)) throw err
      avoid.add(err.message)
      planned = null
    }
  }
  throw new Error(`the output names for ${item.relPath} kept being taken`)
}

/** Puts `from` at `target` (inside `root`) unless that name exists; the same bytes there are an earlier write of ours. */
async function placeNew(from: string, target: string, root: string): Promise<void> {
  const dir = await containedDir(root, dirname(target))
  const final = join(dir, basename(target))
  if (existsOrLink(final)) {
    if (await sameBytes(from, final)) return
    throw new NameTaken(target)
  }
  const temp = join(dir, `.${basename(target)}.clipdesk-part`)
  await rm(temp, { force: true }) // left by a crash; `rm` removes a planted link itself, not its target
  try {
    await copyFile(from, temp, constants.COPYFILE_EXCL)
    try {
      await link(temp, final) // fails if the name exists (a link too): no overwrite, ever
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      if (code === 'EEXIST') throw new NameTaken(target)
      if (!NO_LINK.has(code)) throw err
      try {
        await copyFile(temp, final, constants.COPYFILE_EXCL)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new NameTaken(target)
        throw e
      }
    }
  } finally {
    await rm(temp, { force: true })
  }
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a), stat(b).catch(() => null)])
  if (!sb?.isFile() || sa.size !== sb.size) return false
  const [ba, bb] = await Promise.all([readFile(a), readFile(b)])
  return ba.equals(bb)
}

/** `<destination>/<rel dir>/<rendered template>`: tokens sanitised, checked to stay inside. */
function templatedPath(destination: string, relPath: string, template: string, tokens: Omit<TokenValues, 'name'>): string {
  const rel = cleanRelPath(relPath) ?? 'image'
  const name = posix.basename(rel, posix.extname(rel)) || 'image'
  const dir = posix.dirname(rel)
  return outputTarget(destination, dir === '.' ? '' : dir, renderTemplate(template, { ...tokens, name }))
}
