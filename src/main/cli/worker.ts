import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveOptions } from '../engine/options'
import { DecodeSandbox } from '../engine/public-run'
import { HttpLink } from '../studio/http-link'
import { StudioWorker } from '../studio/worker'
import { WorkerModels } from '../studio/worker-models'
import { CliError, parse } from './args'
import { shownQueueUrl } from '../studio/protocol'
import { errorText } from '../../shared/errors'

/** How often an idle worker tells the coordinator it is there. */
const HEARTBEAT_MS = 15_000

/**
 * `clipdesk worker`: runs studio jobs for a coordinator. Takes job ids from the shared queue,
 * claims each, downloads its input from the coordinator, runs it here with the job's model,
 * uploads the results. Needs no data folder: the coordinator keeps the jobs, keys and results.
 */
export async function runWorker(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    queue: { type: 'string' },
    coordinator: { type: 'string' },
    key: { type: 'string' },
    name: { type: 'string' },
    model: { type: 'string', default: 'medium' },
    threads: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    'lock-ms': { type: 'string' }
  })
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`)
  const queueUrl = values.queue as string | undefined
  const coordinator = values.coordinator as string | undefined
  const key = (values.key as string | undefined) ?? process.env.CLIPDESK_WORKER_KEY
  if (!queueUrl || !coordinator || !key)
    throw new CliError('usage: clipdesk worker --queue redis://host:6379 --coordinator http://host:7878 --key <worker key>')
  // Jobs run the model they name (or the coordinator's default); --model is loaded at start.
  const variant = values.model as string
  if (variant !== 'small' && variant !== 'medium') throw new CliError(`expected --model small or medium, got "${variant}"`)
  const concurrency = Number(values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError('expected --concurrency to be a whole number from 1 up')
  const threads = values.threads === undefined ? undefined : Number(values.threads)
  const lockMs = values['lock-ms'] === undefined ? undefined : Number(values['lock-ms'])
  if (lockMs !== undefined && !(Number.isInteger(lockMs) && lockMs >= 1000))
    throw new CliError('expected --lock-ms to be a whole number from 1000 up')

  const identity = { name: (values.name as string | undefined) ?? `${hostname()}:${process.pid}`, device: 'cpu' }
  const models = new WorkerModels({ threads, defaultModel: variant, log: (m) => console.error(`clipdesk: ${m}`) })
  const tempDir = mkdtempSync(join(tmpdir(), 'clipdesk-worker-'))
  // The input cap is the engine's upload limit: no coordinator can make a worker take more.
  const link = new HttpLink(coordinator, key, identity, {
    models: () => models.names(),
    maxInputBytes: resolveOptions({ dataDir: '' }).maxUploadBytes,
    tempDir
  })
  try {
    await link.hello() // a wrong key, address or protocol fails now, not at the first job
  } catch (err) {
    rmSync(tempDir, { recursive: true, force: true })
    throw new CliError(errorText(err))
  }
  const sandbox = new DecodeSandbox({ maxPixels: 100_000_000, concurrency })
  const worker = new StudioWorker({
    queueUrl,
    link,
    deps: models.deps(sandbox),
    concurrency,
    lockMs,
    onJob: (jobId, outcome, ms, coordinatorMs) => console.log(`${jobId}\t${outcome}\t${ms} ms\tcoordinator ${Math.round(coordinatorMs)} ms`)
  })
  let stop: () => void = () => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  process.once('SIGINT', () => stop())
  process.once('SIGTERM', () => stop())
  worker.start()
  // A heartbeat, so that an idle worker still shows as connected (last seen) on the coordinator.
  const heartbeat = setInterval(() => void link.hello().catch(() => undefined), HEARTBEAT_MS)
  heartbeat.unref()
  console.log(`Worker ${identity.name} taking jobs from ${shownQueueUrl(queueUrl)} for ${coordinator}`)
  // The first job need not wait for its model: load the default one now.
  void models.pool.acquire(variant).then(
    (s) => models.pool.release(s),
    (err: Error) => console.error(`clipdesk: ${err.message}`)
  )
  await stopped
  clearInterval(heartbeat)
  console.log('Stopping…')
  // With Redis unreachable BullMQ's close can wait for a reconnect forever: give it a while,
  // then leave (a job still running is then found stalled and run elsewhere).
  const closed = (async () => {
    await worker.stop()
    await sandbox.close()
    await models.close()
    rmSync(tempDir, { recursive: true, force: true })
  })()
  const gaveUp = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 15_000).unref())])
  if (gaveUp) {
    console.error('clipdesk: the queue did not close in time; leaving anyway')
    process.exit(0)
  }
  return 0
}
