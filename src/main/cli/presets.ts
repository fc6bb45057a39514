import { PRESET_NAME_PATTERN } from '../../shared/params-keys'
import { presetSlug, type PresetInfo, type PresetSaveRequest } from '../../shared/presets'
import { createEngine } from '../engine/create'
import type { PresetsCommandPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { withDataFolder, type OwnerApp } from './folder-hold'
import { CliError, parse } from './args'
import { field, say } from './print'

const USAGE = 'usage: clipdesk presets create <name> <params> [--description <text>] [--replace] | list | delete <name>'

/** An EngineError's details as CLI lines (`params.size: expected …`). */
function explain(err: unknown): never {
  if (err instanceof EngineError) {
    const lines = (err.details ?? []).map((d) => `  ${d.field}: ${d.issue}`)
    throw new CliError([err.message, ...lines].join('\n'))
  }
  throw err
}

/** The presets of the folder, from its engine or from the owning server's app methods. */
interface Presets {
  get(name: string): Promise<PresetInfo | null>
  save(request: PresetSaveRequest): Promise<PresetInfo>
  list(): Promise<PresetInfo[]>
  remove(name: string): Promise<boolean>
}

function enginePresets(engine: PresetsCommandPort): Presets {
  return {
    get: async (name) => engine.preset(name),
    save: async (request) => engine.savePreset(request),
    list: async () => engine.presetsList(),
    remove: async (name) => engine.deletePreset(name)
  }
}

function ownerPresets(app: OwnerApp): Presets {
  const list = async (): Promise<PresetInfo[]> => (await app('presetsList')) as PresetInfo[]
  return {
    get: async (name) => (await list()).find((p) => p.name === name) ?? null,
    save: async (request) => (await app('presetsSave', request)) as PresetInfo,
    list,
    remove: async (name) => (await app('presetsDelete', name)) as boolean
  }
}

/**
 * `clipdesk presets create|list|delete`: the user presets of a data folder (the same as the
 * app's Presets screen). Built-in presets are listed too, and cannot be changed.
 */
export async function runPresets(args: string[]): Promise<number> {
  const { positionals, values, dataDir } = parse(args, {
    description: { type: 'string' },
    replace: { type: 'boolean', default: false }
  })
  const [sub, given, params, ...extra] = positionals
  // A display name ("Shop Beige") is kept as the title; the preset is used by its short name (shop-beige).
  const title = given !== undefined && !PRESET_NAME_PATTERN.test(given) ? given.trim() : null
  const name = title !== null ? presetSlug(title) || given : given
  if (extra.length > 0) throw new CliError(`unexpected argument "${extra[0]}" (quote a params string that has spaces or ;)\n${USAGE}`)
  return withDataFolder(dataDir, 'presets', async (owner) => {
    const engine = owner ? null : createEngine({ dataDir })
    const presets = owner ? ownerPresets(owner) : enginePresets(engine!)
    try {
      switch (sub) {
        case 'create': {
          if (!name || params === undefined) throw new CliError(USAGE)
          const existing = await presets.get(name)
          if (existing && !existing.builtin && !values.replace)
            throw new CliError(`a preset named "${name}" exists; add --replace to replace it`)
          let info
          try {
            info = await presets.save({
              name,
              title: title ?? existing?.title ?? null,
              params,
              description: (values.description as string | undefined) ?? existing?.description ?? null
            })
          } catch (err) {
            explain(err)
          }
          say(
            `${existing ? 'Replaced' : 'Created'} preset ${info.title === info.name ? info.name : `"${info.title}" (use it as ${info.name})`}: ${info.params}`
          )
          return 0
        }
        case 'list': {
          for (const p of await presets.list()) {
            say(
              `${field(p.name)}\t${field(p.title)}\t${p.builtin ? 'built-in' : 'user'}\t${field(p.params)}${p.description ? `\t${field(p.description)}` : ''}`
            )
          }
          return 0
        }
        case 'delete': {
          if (!name) throw new CliError(USAGE)
          let deleted = false
          try {
            deleted = await presets.remove(name)
          } catch (err) {
            explain(err)
          }
          if (!deleted) throw new CliError(`no user preset named "${name}"`)
          say(`Deleted preset ${name}`)
          return 0
        }
        default:
          throw new CliError(USAGE)
      }
    } finally {
      await engine?.stop()
    }
  })
}
