import { openDataFolder } from '../engine/data-folder'
import { WorkerRegistry } from '../studio/registry'
import type { WorkerInfo } from '../studio/protocol'
import { CliError, parse } from './args'
import { field, say } from './print'

/** `clipdesk workers`: the studio workers a coordinator has seen, from its data folder or over HTTP. */
export async function runWorkers(args: string[]): Promise<number> {
  const { values, dataDir, positionals } = parse(args, {
    json: { type: 'boolean', default: false },
    coordinator: { type: 'string' },
    key: { type: 'string' }
  })
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`)
  let workers: WorkerInfo[]
  if (values.coordinator) {
    if (!values.key) throw new CliError('--coordinator needs --key <owner key>')
    const res = await fetch(`${(values.coordinator as string).replace(/\/+$/, '')}/api/v1/studio/workers`, {
      headers: { 'X-API-Key': values.key as string }
    })
    if (!res.ok) throw new CliError(`the coordinator answered ${res.status}: ${(await res.text()).slice(0, 300)}`)
    workers = ((await res.json()) as { workers: WorkerInfo[] }).workers
  } else {
    // The studio's tables, read with no engine running (`engine/data-folder.ts`).
    const folder = openDataFolder(dataDir)
    try {
      workers = new WorkerRegistry(folder.tables).list()
    } finally {
      folder.close()
    }
  }
  if (values.json) {
    console.log(JSON.stringify(workers, null, 2))
    return 0
  }
  if (workers.length === 0) say('No workers have connected yet. Start one with: clipdesk worker --queue … --coordinator … --key …')
  for (const w of workers) {
    const rate = w.jobs_per_hour === null ? '—' : `${w.jobs_per_hour} jobs/h`
    say(`${field(w.name)}\t${field(w.device)}\t${w.jobs_done} jobs\t${rate}\tlast seen ${new Date(w.last_seen).toISOString()}`)
  }
  return 0
}
