import type { ApiKeyView } from '../../shared/app'
import { createEngine } from '../engine/create'
import type { KeysCommandPort } from '../engine/ports'
import { EngineError } from '../engine/errors'
import { CliError, parse, parseCredits } from './args'
import { withDataFolder, type OwnerApp } from './folder-hold'
import { field, say } from './print'

function describeCredits(credits: number | null): string {
  return credits === null ? 'unlimited' : String(credits)
}

/** A key as this command shows it, from the engine or from the owning server's app methods. */
type KeyLine = Pick<ApiKeyView, 'id' | 'prefix' | 'name' | 'credits' | 'admin' | 'kind'> & { revoked: boolean }

interface Keys {
  create(o: { credits: number | null; name?: string; admin: boolean; worker: boolean }): Promise<{ key: string; info: KeyLine }>
  list(): Promise<KeyLine[]>
  revoke(id: string): Promise<boolean>
  credit(id: string, n: number | null): Promise<KeyLine | null>
}

function engineKeys(engine: KeysCommandPort): Keys {
  const line = (k: ReturnType<KeysCommandPort['keysList']>[number]): KeyLine => ({ ...k, revoked: k.revokedAt !== null })
  return {
    async create(o) {
      const { key, info } = engine.createKey({ credits: o.credits, name: o.name, admin: o.admin, kind: o.worker ? 'worker' : 'client' })
      return { key, info: line(info) }
    },
    list: async () => engine.keysList().map(line),
    revoke: async (id) => engine.revokeKey(id),
    async credit(id, n) {
      const info = engine.creditKey(id, n)
      return info && line(info)
    }
  }
}

/** The keys of the server that owns the folder, through its app methods. */
function ownerKeys(app: OwnerApp): Keys {
  const line = (v: ApiKeyView): KeyLine => ({ ...v, revoked: v.revoked_at !== null })
  const unlessMissing = <T>(p: Promise<T>): Promise<T | null> =>
    p.catch((err: unknown) => {
      if (err instanceof EngineError && err.code === 'not_found') return null
      throw err
    })
  return {
    async create(o) {
      const kind = o.worker ? 'worker' : 'client'
      const made = (await app('keysCreate', { credits: o.credits, name: o.name, admin: o.admin, kind })) as {
        key: string
        info: ApiKeyView
      }
      return { key: made.key, info: line(made.info) }
    },
    list: async () => ((await app('keysList')) as ApiKeyView[]).map(line),
    revoke: async (id) => (await unlessMissing(app('keysRevoke', id))) !== null,
    async credit(id, n) {
      const v = (await unlessMissing(app('keysCredit', { id, add: n }))) as ApiKeyView | null
      return v && line(v)
    }
  }
}

/** `clipdesk keys create|list|revoke|credit`. The new key is the last line of stdout. */
export async function runKeys(args: string[]): Promise<number> {
  const { positionals, values, dataDir } = parse(args, {
    credits: { type: 'string' },
    name: { type: 'string' },
    admin: { type: 'boolean', default: false },
    worker: { type: 'boolean', default: false }
  })
  const [sub, id, amount] = positionals
  return withDataFolder(dataDir, 'keys', async (owner) => {
    const engine = owner ? null : createEngine({ dataDir })
    const keys = owner ? ownerKeys(owner) : engineKeys(engine!)
    try {
      return await keysCommand(keys, sub, id, amount, values)
    } catch (err) {
      // The server's refusal, in one line (the engine's own are thrown as they are).
      if (owner && err instanceof EngineError) throw new CliError(err.message)
      throw err
    } finally {
      await engine?.stop()
    }
  })
}

async function keysCommand(
  keys: Keys,
  sub: string | undefined,
  id: string | undefined,
  amount: string | undefined,
  values: Record<string, unknown>
): Promise<number> {
  switch (sub) {
    case 'create': {
      if (values.admin && values.worker) throw new CliError('a key is either --admin or --worker')
      const { key, info } = await keys.create({
        credits: parseCredits(values.credits as string | undefined, null),
        name: values.name as string | undefined,
        admin: values.admin as boolean,
        worker: values.worker as boolean
      })
      const role = info.admin
        ? ', owner: may use the app in a browser and manage keys'
        : info.kind === 'worker'
          ? ', worker: may only take work and return results'
          : ''
      say(`Created ${info.id} (credits: ${describeCredits(info.credits)}${role}). Keep the key now; it is not shown again:`)
      say(key)
      return 0
    }
    case 'list': {
      const list = await keys.list()
      if (list.length === 0) say('No keys. Create one with: clipdesk keys create')
      for (const k of list) {
        const state = k.revoked ? 'revoked' : 'active'
        say(
          `${k.id}\t${k.prefix}…\t${state}\tcredits: ${describeCredits(k.credits)}${k.admin ? '\towner' : ''}${k.kind === 'worker' ? '\tworker' : ''}${k.name ? `\t${field(k.name)}` : ''}`
        )
      }
      return 0
    }
    case 'revoke': {
      if (!id) throw new CliError('usage: clipdesk keys revoke <id>')
      if (!(await keys.revoke(id))) throw new CliError(`no active key with id "${id}"`)
      say(`Revoked ${id}`)
      return 0
    }
    case 'credit': {
      if (!id || amount === undefined) throw new CliError('usage: clipdesk keys credit <id> <n>|unlimited')
      const info = await keys.credit(id, parseCredits(amount, null))
      if (!info) throw new CliError(`no key with id "${id}"`)
      say(`${id}: credits ${describeCredits(info.credits)}`)
      return 0
    }
    default:
      throw new CliError('usage: clipdesk keys create|list|revoke|credit')
  }
}
