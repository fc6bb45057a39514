import { hostname } from 'node:os'
import { DecodeSandbox } from '../engine/sandbox/decoder'
import { Segmenter } from '../engine/pipeline/mask'
import { HttpLink } from '../studio/http-link'
import { StudioWorker } from '../studio/worker'
import { CliError, parse } from './args'
import { shownQueueUrl } from '../studio/protocol'

/** How often an idle worker tells the coordinator it is there. */
const HEARTBEAT_MS = 15_000

/**
 * `clipdesk worker`: runs studio jobs for a coordinator. Takes job ids from the shared queue,
 * downloads each input from the coordinator, runs the pipeline here, uploads the results.
 * Needs no data folder: the coordinator keeps the jobs, keys and results.
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
  if (!queueUrl || !coordinator || !key) throw new CliError('usage: clipdesk worker --queue redis://host:6379 --coordinator http://host:7878 --key <worker key>')
  const variant = values.model as string
  if (variant !== 'small' && variant !== 'medium') throw new CliError(`expected --model small or medium, got "${variant}"`)
  const concurrency = Number(values.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError('expected --concurrency to be a whole number from 1 up')
  const threads = values.threads === undefined ? undefined : Number(values.threads)
  const lockMs = values['lock-ms'] === undefined ? undefined : Number(values['lock-ms'])
  if (lockMs !== undefined && !(Number.isInteger(lockMs) && lockMs >= 1000)) throw new CliError('expected --lock-ms to be a whole number from 1000 up')

  const identity = { name: (values.name as string | undefined) ?? `${hostname()}:${process.pid}`, device: 'cpu' }
  const link = new HttpLink(coordinator, key, identity)
  await link.whoami() // a wrong key or address fails now, not at the first job
  const sandbox = new DecodeSandbox({ maxPixels: 100_000_000, concurrency })
  const model: { segmenter?: Promise<Segmenter> } = {}
  const worker = new StudioWorker({
    queueUrl,
    link,
    segmenter: () => (model.segmenter ??= Segmenter.create({ variant, threads })),
    decode: (bytes, _maxPixels, signal) => sandbox.decode(bytes, signal),
    toNative: (rgba, width, height, target, signal) => sandbox.toNative(rgba, width, height, target, signal),
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
  const heartbeat = setInterval(() => void link.whoami().catch(() => undefined), HEARTBEAT_MS)
  heartbeat.unref()
  console.log(`Worker ${identity.name} taking jobs from ${shownQueueUrl(queueUrl)} for ${coordinator}`)
  await stopped
  clearInterval(heartbeat)
  console.log('Stopping…')
  // With Redis unreachable BullMQ's close can wait for a reconnect forever: give it a while,
  // then leave (a job still running is then found stalled and run elsewhere).
  const closed = (async () => {
    await worker.stop()
    await sandbox.close()
    if (model.segmenter) await (await model.segmenter).close()
  })()
  const gaveUp = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 15_000).unref())])
  if (gaveUp) {
    console.error('clipdesk: the queue did not close in time; leaving anyway')
    process.exit(0)
  }
  return 0
}
