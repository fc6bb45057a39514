import { readFileSync } from 'node:fs'
import { DEVICES, sessionSummary, type ModelAddResult, type ModelInfo, type ModelTestRun } from '../../shared/models'
import { createEngine } from '../engine/create'
import type { ModelsCommandPort } from '../engine/ports'
import { EngineError, JobFailure } from '../engine/errors'
import { withDataFolder, type OwnerApp } from './folder-hold'
import { CliError, parse } from './args'
import { say } from './print'
import { errorText } from '../../shared/errors'

const USAGE = `usage: clipdesk models list [--json]
       clipdesk models add <file.onnx> [--name <name>] [--as <known descriptor>] [--descriptor <file.json>] [--json]
       clipdesk models remove <name> | default <name> | device <${DEVICES.join('|')}> | test <name> [--json]`

/** An EngineError's details as CLI lines. */
function explain(err: unknown): never {
  if (err instanceof EngineError) {
    const lines = (err.details ?? []).map((d) => `  ${d.field}: ${d.issue}`)
    throw new CliError([err.message, ...lines].join('\n'))
  }
  if (err instanceof JobFailure) throw new CliError(`${err.reason}: ${err.message}`)
  throw err
}

const mb = (n: number): string => `${(n / 1e6).toFixed(0)} MB`

function line(m: ModelInfo): string {
  const device = m.activeDevice ? `${m.activeDevice}${m.deviceWarning ? ' (fallback)' : ''}` : `${m.plannedDevice} (${m.device})`
  return [
    `${m.isDefault ? '*' : ' '} ${m.name}`,
    m.family,
    `${m.inputSize[0]}x${m.inputSize[1]}${m.dynamic ? ' dynamic' : ''}`,
    mb(m.bytes),
    m.speedClass,
    device,
    sessionSummary(m.session),
    m.licence
  ].join('\t')
}

/** The model registry of the folder, from its engine or from the owning server's app methods. */
interface Models {
  list(): Promise<ModelInfo[]>
  add(request: { file: string; name?: string; as?: string; descriptor?: unknown }): Promise<ModelAddResult>
  remove(name: string): Promise<void>
  setDefault(name: string): Promise<void>
  setDevice(device: string): Promise<void>
  test(name: string): Promise<ModelTestRun>
}

function engineModels(engine: ModelsCommandPort): Models {
  const svc = engine.modelService
  return {
    list: async () => svc.list(),
    add: (request) => svc.add(request),
    remove: async (name) => svc.remove(name),
    setDefault: async (name) => svc.setDefault(name),
    setDevice: async (device) => svc.setDevice(device),
    test: (name) => svc.test(name)
  }
}

function ownerModels(app: OwnerApp): Models {
  return {
    list: async () => (await app('modelsList')) as ModelInfo[],
    add: async ({ file, ...rest }) => (await app('modelsAdd', { file: { path: file }, ...rest })) as ModelAddResult,
    remove: async (name) => void (await app('modelsRemove', name)),
    setDefault: async (name) => void (await app('modelsSetDefault', name)),
    setDevice: async (device) => void (await app('modelsSetDevice', device)),
    test: async (name) => (await app('modelsTest', name)) as ModelTestRun
  }
}

/**
 * `clipdesk models list|add|remove|default|device|test`: the model registry of a data folder
 * (the same as the app's Models settings and the `models:*` IPC calls).
 */
export async function runModels(args: string[]): Promise<number> {
  const { positionals, values, dataDir } = parse(args, {
    json: { type: 'boolean', default: false },
    name: { type: 'string' },
    as: { type: 'string' },
    descriptor: { type: 'string' }
  })
  const [sub, arg, ...extra] = positionals
  if (extra.length > 0) throw new CliError(`unexpected argument "${extra[0]}"\n${USAGE}`)
  const json = values.json as boolean
  const out = (value: unknown, text: string): void => (json ? console.log(JSON.stringify(value, null, 2)) : say(...text.split('\n')))
  return withDataFolder(dataDir, 'models', async (owner) => {
    const engine = owner ? null : createEngine({ dataDir })
    const svc = owner ? ownerModels(owner) : engineModels(engine!)
    try {
      switch (sub) {
        case 'list': {
          const list = await svc.list()
          out(
            list,
            ['  name\tfamily\tinput\tsize\tspeed\tdevice (setting)\tsession on this machine\tlicence', ...list.map(line)].join('\n')
          )
          return 0
        }
        case 'add': {
          if (!arg) throw new CliError(USAGE)
          let descriptor: unknown
          if (values.descriptor) {
            try {
              descriptor = JSON.parse(readFileSync(values.descriptor as string, 'utf8'))
            } catch (err) {
              throw new CliError(`cannot read the descriptor ${values.descriptor}: ${errorText(err)}`)
            }
          }
          const added = await svc
            .add({ file: arg, name: values.name as string | undefined, as: values.as as string | undefined, descriptor })
            .catch(explain)
          const t = added.test
          out(
            added,
            `Added model ${added.model.name} (${added.model.family}, ${mb(added.model.bytes)}); test run on ${t.device} in ${t.inferenceMs} ms${t.deviceWarning ? `\nwarning: ${t.deviceWarning}` : ''}`
          )
          return 0
        }
        case 'remove': {
          if (!arg) throw new CliError(USAGE)
          try {
            await svc.remove(arg)
          } catch (err) {
            explain(err)
          }
          out({ removed: arg }, `Removed model ${arg}`)
          return 0
        }
        case 'default': {
          if (!arg) throw new CliError(USAGE)
          try {
            await svc.setDefault(arg)
          } catch (err) {
            explain(err)
          }
          out({ default: arg }, `Default model: ${arg}`)
          return 0
        }
        case 'device': {
          if (!arg) throw new CliError(USAGE)
          try {
            await svc.setDevice(arg)
          } catch (err) {
            explain(err)
          }
          out({ device: arg }, `Device: ${arg} (a provider that cannot load falls back to the CPU)`)
          return 0
        }
        case 'test': {
          if (!arg) throw new CliError(USAGE)
          const t = await svc.test(arg).catch(explain)
          out(t, `${t.name}: ran on ${t.device} in ${t.inferenceMs} ms${t.deviceWarning ? `\nwarning: ${t.deviceWarning}` : ''}`)
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
