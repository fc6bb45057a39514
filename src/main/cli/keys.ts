import { Engine } from '../engine/engine'
import { withDataFolder } from './folder-hold'
import { CliError, parse, parseCredits } from './args'
import { field, say } from './print'

function describeCredits(credits: number | null): string {
  return credits === null ? 'unlimited' : String(credits)
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
  return withDataFolder(dataDir, 'keys', async () => {
    const engine = new Engine({ dataDir })
    try {
      switch (sub) {
        case 'create': {
          if (values.admin && values.worker) throw new CliError('a key is either --admin or --worker')
          const { key, info } = engine.createKey({
            credits: parseCredits(values.credits as string | undefined, null),
            name: values.name as string | undefined,
            admin: values.admin as boolean,
            kind: values.worker ? 'worker' : 'client'
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
          const keys = engine.keysList()
          if (keys.length === 0) say('No keys. Create one with: clipdesk keys create')
          for (const k of keys) {
            const state = k.revokedAt ? 'revoked' : 'active'
            say(
              `${k.id}\t${k.prefix}…\t${state}\tcredits: ${describeCredits(k.credits)}${k.admin ? '\towner' : ''}${k.kind === 'worker' ? '\tworker' : ''}${k.name ? `\t${field(k.name)}` : ''}`
            )
          }
          return 0
        }
        case 'revoke': {
          if (!id) throw new CliError('usage: clipdesk keys revoke <id>')
          if (!engine.revokeKey(id)) throw new CliError(`no active key with id "${id}"`)
          say(`Revoked ${id}`)
          return 0
        }
        case 'credit': {
          if (!id || amount === undefined) throw new CliError('usage: clipdesk keys credit <id> <n>|unlimited')
          const n = parseCredits(amount, null)
          const info = engine.creditKey(id, n)
          if (!info) throw new CliError(`no key with id "${id}"`)
          say(`${id}: credits ${describeCredits(info.credits)}`)
          return 0
        }
        default:
          throw new CliError('usage: clipdesk keys create|list|revoke|credit')
      }
    } finally {
      await engine.stop()
    }
  })
}
