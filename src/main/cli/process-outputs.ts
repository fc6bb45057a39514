/**
 * Where `clipdesk process` puts one photo's results: names from the template (folders of the
 * input mirrored), never over a file it did not write itself (`photo-1.png`, `-2`… instead),
 * written through folders checked by real path, to a temporary name then renamed into place.
 */
import { copyFile, rename, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import { containedDir } from '../contained-dir'
import { numbered } from '../outputs/numbered'
import { outputTarget, renderTemplate, type TokenValues } from '../watch/template'
import type { ProcessLedger } from './process-ledger'

export interface ResultFile {
  variation: string
  ext: string
  path: string
}

/** The default naming: `{name}.{ext}`, or `{name}.{variation}.{ext}` when several files are written. */
export function defaultTemplate(several: boolean): string {
  return several ? '{name}.{variation}.{ext}' : '{name}.{ext}'
}

const toRel = (outDir: string, abs: string): string => relative(outDir, abs).split(sep).join('/')

/**
 * Chooses the names of one input's outputs (relative to `outDir`). Names the input claimed in an
 * earlier run are its own and kept; a new name skips existing files and names claimed by others.
 */
export function chooseNames(
  outDir: string,
  outStem: string,
  results: ResultFile[],
  template: string,
  tokens: Omit<TokenValues, 'variation' | 'ext' | 'name'>,
  own: string[],
  taken: Set<string>
): string[] {
  const relDir = dirname(outStem) === '.' ? '' : dirname(outStem).split(sep).join('/')
  const names: string[] = []
  for (const r of results) {
    const rendered = renderTemplate(template, { ...tokens, name: basename(outStem), variation: r.variation, ext: r.ext })
    const base = toRel(outDir, outputTarget(outDir, relDir, rendered))
    let chosen: string | null = null
    for (let n = 0; n < 10_000 && chosen === null; n++) {
      const candidate = numbered(base, n)
      if (names.includes(candidate)) continue
      if (own.includes(candidate)) chosen = candidate
      else if (!taken.has(candidate) && !existsSync(join(outDir, candidate))) chosen = candidate
    }
    if (chosen === null) throw new Error(`no free file name for ${base}`)
    names.push(chosen)
  }
  return names
}

/** Writes the results under the chosen names: claimed in the ledger first, then copied and renamed. */
export async function writeOutputs(
  outDir: string,
  ledger: ProcessLedger,
  entry: { input: string; settings: string; size: number; mtimeMs: number },
  results: ResultFile[],
  names: string[]
): Promise<string[]> {
  ledger.record({ ...entry, outputs: names, state: 'writing' })
  for (let i = 0; i < results.length; i++) {
    const target = join(outDir, names[i]!)
    const dir = await containedDir(outDir, dirname(target))
    const temp = join(dir, `.${basename(target)}.${process.pid}.part`)
    try {
      await copyFile(results[i]!.path, temp)
      await rename(temp, join(dir, basename(target)))
    } catch (err) {
      await rm(temp, { force: true })
      throw err
    }
  }
  ledger.record({ ...entry, outputs: names, state: 'done' })
  return names.map((n) => join(outDir, n))
}
