import { resolve } from 'node:path'
import { reviewLevel, reviewText } from '../../shared/review'
import { describeJob } from '../../shared/vocabulary'
import type { WatchFolderView } from '../../shared/watch'
import { EngineError } from '../engine/errors'
import { openDataFolder } from '../engine/data-folder'
import { checkWatchOutput, WatchFolders } from '../watch/config'
import { WatchStore } from '../watch/store'
import { offlineViews } from '../watch/views'
import { CliError, parse } from './args'
import { say } from './print'

const WATCH_USAGE = `usage:
  clipdesk watch add <folder> [--no-recursive] [--mode clipping] [--params <set>] [--format png]
                     [--out <dir>] [--template "{name}.{variation}.{ext}"] [--move-originals] [--paused]
  clipdesk watch list [--json]
  clipdesk watch pause|resume|remove <id or folder>
  clipdesk watch retry <id or folder> [<file id>]`

/** A folder as lines of text (printed escaped: paths and messages may hold any character). */
function describeFolder(v: WatchFolderView): string[] {
  const c = v.counts
  const lines = [
    `${v.id}  ${v.state}${v.state_message ? ` (${v.state_message})` : ''}  ${v.path}`,
    `  job: ${describeJob(v.request)}${v.request.mode === 'params' && v.request.params ? ` (${v.request.params})` : ''}; ` +
      `${v.recursive ? 'sub-folders included' : 'top level only'}; originals ${v.originals === 'move' ? 'moved to clipdesk-done' : 'kept'}`,
    `  output: ${v.output_dir}/${v.name_template}`,
    `  waiting ${c.waiting} · processing ${c.processing} · done ${c.done} · skipped ${c.skipped} · failed ${c.failed}${c.to_check > 0 ? ` · to check ${c.to_check} (${c.likely_wrong} likely wrong)` : ''}${c.touched_up > 0 ? ` · touched up ${c.touched_up}` : ''}`
  ]
  for (const f of v.failed.slice(0, 20)) lines.push(`  failed #${f.id} ${f.rel_path}: ${f.error?.message ?? 'failed'}`)
  if (v.failed.length > 20) lines.push(`  … and ${v.failed.length - 20} more failed files`)
  // Done files whose cutout the model is unsure of, most uncertain first (docs/review.md).
  for (const f of v.to_check.slice(0, 20))
    lines.push(`  to check #${f.id} ${f.rel_path}: ${reviewText(reviewLevel(f.uncertainty) ?? 'worth_a_look', f.uncertainty ?? 0)}`)
  if (v.to_check.length > 20) lines.push(`  … and ${v.to_check.length - 20} more files to check`)
  return lines
}

/** An EngineError as a usage error: its message and one line per detail. */
function asCliError(err: unknown): unknown {
  if (!(err instanceof EngineError)) return err
  const details = (err.details ?? []).map((d) => `\n  ${d.field}: ${d.issue}`).join('')
  return new CliError(`${err.message}${details}`)
}

/**
 * `clipdesk watch add|list|pause|resume|remove|retry`: edits the watched folders in the data
 * folder's database. A running `clipdesk serve` (or the app) on the same data folder applies
 * the change within a second; without one, the folders are watched at its next start.
 */
export async function runWatch(args: string[]): Promise<number> {
  const { positionals, values, dataDir } = parse(args, {
    'no-recursive': { type: 'boolean', default: false },
    mode: { type: 'string' },
    params: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    template: { type: 'string' },
    'move-originals': { type: 'boolean', default: false },
    paused: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false }
  })
  const [sub, target, extra] = positionals
  const folder = openDataFolder(dataDir)
  const store = new WatchStore(folder.tables)
  const folders = new WatchFolders(store, folder.presetLookup)
  const views = (): WatchFolderView[] => offlineViews(store, folder.holder())
  const viewOf = (id: string): WatchFolderView => views().find((v) => v.id === id)!
  try {
    switch (sub) {
      case 'add': {
        if (!target) throw new CliError(`name the folder to watch\n${WATCH_USAGE}`)
        const output = values.out === undefined ? undefined : resolve(values.out as string)
        await checkWatchOutput({ path: resolve(target), output_dir: output })
        const f = folders.add({
          path: resolve(target),
          recursive: !values['no-recursive'],
          ...(values.mode !== undefined && { mode: values.mode }),
          ...(values.params !== undefined && { params: values.params }),
          ...(values.format !== undefined && { output_format: values.format }),
          ...(output !== undefined && { output_dir: output }),
          ...(values.template !== undefined && { name_template: values.template }),
          originals: values['move-originals'] ? 'move' : 'keep',
          paused: values.paused as boolean
        })
        const v = viewOf(f.id)
        say(`Added ${f.id}`, ...describeFolder(v))
        if (v.state === 'stopped') say('Nothing watches it yet: it is taken up when `clipdesk serve` or the app starts.')
        return 0
      }
      case 'list': {
        const all = views()
        if (values.json) console.log(JSON.stringify(all, null, 2))
        else if (all.length === 0) say('No watched folders. Add one with: clipdesk watch add <folder>')
        else say(...all.flatMap((v, i) => [...(i > 0 ? [''] : []), ...describeFolder(v)]))
        return 0
      }
      case 'pause':
      case 'resume': {
        if (!target) throw new CliError(`name the folder (id or path)\n${WATCH_USAGE}`)
        const f = folders.setPaused(folders.get(absoluteOrId(target)).id, sub === 'pause')
        say(`${sub === 'pause' ? 'Paused' : 'Resumed'} ${f.id} (${f.path})`)
        return 0
      }
      case 'remove': {
        if (!target) throw new CliError(`name the folder (id or path)\n${WATCH_USAGE}`)
        const f = folders.remove(absoluteOrId(target))
        say(`Removed ${f.id} (${f.path}); its output files stay where they are`)
        return 0
      }
      case 'retry': {
        if (!target) throw new CliError(`name the folder (id or path)\n${WATCH_USAGE}`)
        const fileId = extra === undefined ? undefined : Number(extra)
        if (fileId !== undefined && (!Number.isInteger(fileId) || fileId < 1))
          throw new CliError(`expected a file id (a number from watch list), got "${extra}"`)
        const folder = folders.get(absoluteOrId(target))
        const { files } = folders.retry({ folder_id: folder.id, ...(fileId !== undefined && { file_id: fileId }) })
        say(`${files.length} file${files.length === 1 ? '' : 's'} handed back to ${folder.id}`)
        return 0
      }
      default:
        throw new CliError(WATCH_USAGE)
    }
  } catch (err) {
    throw asCliError(err)
  } finally {
    folder.close()
  }
}

/** Ids stay as given; anything else is a folder path, relative to the current directory. */
function absoluteOrId(arg: string): string {
  return /^wf_[0-9a-f]+$/.test(arg) ? arg : resolve(arg)
}
