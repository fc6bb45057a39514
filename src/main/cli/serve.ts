import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ListenerStatus } from '../../shared/app'
import { queueUrlProblem } from '../../shared/app'
import { DEVICES, type Device } from '../../shared/models'
import { composeServices, engineOptionsFrom, serverSettings, type Services } from '../compose-services'
import { signedPreviewAddress } from '../http/app-bridge'
import { signedDownloadAddress } from '../http/app-downloads'
import { startHttpServer } from '../http/server'
import { parseWorkerListen, startWorkerListener, type WorkerAddress } from '../http/worker-listener'
import { shownQueueUrl } from '../studio/protocol'
import { APP_VERSION } from '../version'
import { defaultOutputDir } from '../data-dir'
import { newOwnerToken, removeOwnerNote, writeOwnerNote } from '../owner-note'
import { discardSpareSessionWorker } from '../engine/public-start'
import { CliError, parse } from './args'
import { complain, say } from './print'
import { errorText } from '../../shared/errors'

/** The built renderer beside the main bundles: `out/renderer`, seen from `out/main/cli.js` or from a chunk (`out/main/chunks/`). */
function defaultRendererDir(): string | undefined {
  // `out/renderer`, beside `out/main` where this code runs (in `out/main/chunks` once the CLI's
  // commands are split into chunks). A built renderer has its `assets/` (the sources do not).
  for (const dir of [join(import.meta.dirname, '../renderer'), join(import.meta.dirname, '../../renderer')]) {
    if (existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets'))) return dir
  }
  return undefined
}

/** `clipdesk serve`: the services of `compose-services.ts` and the HTTP listener until SIGINT/SIGTERM. */
export async function runServe(args: string[]): Promise<number> {
  const { values, dataDir, positionals } = parse(args, {
    port: { type: 'string', default: '7878' },
    'allow-private-urls': { type: 'boolean', default: false },
    // Accept jobs but hold them until a start without --paused (queue up work, run it later).
    paused: { type: 'boolean', default: false },
    // Execution provider for this run, over the stored setting (`clipdesk models device`).
    device: { type: 'string' },
    // Studio mode: dispatch through BullMQ on this Redis; SQLite stays the record.
    queue: { type: 'string' },
    'no-local-worker': { type: 'boolean', default: false },
    'lock-ms': { type: 'string' },
    // Studio mode: the most one result upload of a worker may carry (MB, all its files).
    'max-result-mb': { type: 'string' },
    // Studio mode: a second listener for workers on other machines (worker endpoints only).
    'worker-listen': { type: 'string' }
  })
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`)
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`expected --port to be 0–65535, got "${values.port}"`)

  const device = values.device as string | undefined
  if (device !== undefined && !(DEVICES as readonly string[]).includes(device))
    throw new CliError(`expected --device to be one of ${DEVICES.join(', ')}, got "${device}"`)
  const settings = serverSettings(dataDir)
  const engineOptions = {
    dataDir,
    allowPrivateNetworkUrls: values['allow-private-urls'] as boolean,
    device: device as Device | undefined,
    role: 'serve',
    ...engineOptionsFrom(settings.get())
  }
  // The flags win over the stored settings (Settings in the app: queue address, local worker).
  const stored = settings.get()
  const queueUrl = (values.queue as string | undefined) ?? (stored.queueUrl || undefined)
  if (
    !queueUrl &&
    (values['no-local-worker'] ||
      values['lock-ms'] !== undefined ||
      values['worker-listen'] !== undefined ||
      values['max-result-mb'] !== undefined)
  ) {
    throw new CliError('--no-local-worker, --lock-ms, --max-result-mb and --worker-listen need --queue')
  }
  const queueProblem = queueUrl === undefined ? null : queueUrlProblem(queueUrl)
  if (queueProblem) throw new CliError(`--queue: ${queueProblem}`)
  let workerAddress: WorkerAddress | null = null
  try {
    workerAddress = values['worker-listen'] === undefined ? null : parseWorkerListen(values['worker-listen'] as string)
  } catch (err) {
    throw new CliError(errorText(err))
  }
  const lockMs = values['lock-ms'] === undefined ? undefined : Number(values['lock-ms'])
  if (lockMs !== undefined && !(Number.isInteger(lockMs) && lockMs >= 1000))
    throw new CliError(`expected --lock-ms to be a whole number from 1000 up, got "${values['lock-ms']}"`)
  const maxResultMb = values['max-result-mb'] === undefined ? undefined : Number(values['max-result-mb'])
  if (maxResultMb !== undefined && !(Number.isInteger(maxResultMb) && maxResultMb >= 1))
    throw new CliError(`expected --max-result-mb to be a whole number from 1 up, got "${values['max-result-mb']}"`)
  const localWorker = !values['no-local-worker'] && stored.localWorker
  // No model runs in this process now: the session built ahead for it is let go (cli.ts).
  if (values.paused || (queueUrl && !localWorker)) void discardSpareSessionWorker()
  let services: Services
  try {
    const maxResultBytes = maxResultMb === undefined ? undefined : maxResultMb * 1024 * 1024
    services = composeServices(engineOptions, queueUrl ? { queueUrl, localWorker, lockMs, maxResultBytes } : null)
  } catch (err) {
    throw new CliError(errorText(err))
  }
  const { engine, studio } = services
  // Signal handlers first: a supervisor may signal as soon as it reads the "Listening" line.
  let stop: () => void = () => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  process.once('SIGINT', () => stop())
  process.once('SIGTERM', () => stop())

  // The engine, batches and watched folders (clipdesk watch add …: active while serve runs, unless paused).
  await services.start({ paused: values.paused as boolean })
  // Once the folder is this server's (a refused serve writes nothing, not even a first key).
  if (engine.keyCount() === 0) {
    // The first key is the owner's: it also opens the app in a browser (the app bridge).
    const { key } = engine.createKey({ credits: null, name: 'first key', admin: true })
    say(`API key: ${key}`)
  }
  let url: string | null = null
  const listenerStatus = (): ListenerStatus => ({ running: url !== null, url, error: null, managed: false })
  const address = signedPreviewAddress(engine)
  const handlers = services.appApi(
    {
      host: 'server',
      version: APP_VERSION,
      settings,
      get effective() {
        return { dataDir: engine.options.dataDir, outputDir: settings.get().outputDir || defaultOutputDir() }
      },
      startedWith: stored,
      listener: listenerStatus,
      downloads: signedDownloadAddress(engine)
    },
    address
  )
  const rendererDir = defaultRendererDir()
  const app = { handlers, engine, files: services.files, events: services.events(address), rendererDir }
  // A command started beside this server (`clipdesk process`) works through it: the address and
  // the owner token in `owner.json` (mode 0600), removed when the server stops (owner-note.ts).
  const ownerToken = newOwnerToken()
  const listener = await startHttpServer(engine, { port, app, studio: studio ?? undefined, ownerToken })
  const workerListener = studio && workerAddress ? await startWorkerListener(engine, studio, workerAddress) : null
  url = listener.url
  writeOwnerNote(dataDir, { pid: process.pid, url: listener.url, token: ownerToken, paused: values.paused as boolean })
  say(`Data folder: ${dataDir}`, `Listening on ${listener.url}`)
  const watched = services.watch.list()
  if (watched.length > 0) say(`Watching ${watched.filter((f) => f.state === 'active').length} of ${watched.length} folders`)
  if (rendererDir) say(`App: open ${listener.url}/ in a browser and sign in with an owner key`)
  if (queueUrl) say(`Studio queue: ${shownQueueUrl(queueUrl)}${localWorker ? '' : ' (no local worker)'}`)
  if (workerListener) say(`Workers listening on ${workerListener.url} (worker endpoints only)`)
  if (values.paused) say('Paused: jobs are accepted and kept queued (watched folders wait too); start again without --paused to run them')
  else if (localWorker) {
    // The model line: which model and device run (and why not the asked-for device).
    engine.warmUp().then(
      (w) => say(`Model ${w.model} on ${w.device}${w.warning ? ` (warning: ${w.warning})` : ''}`),
      (err: Error) => complain(`clipdesk: ${err.message}`)
    )
  }

  await stopped
  say('Stopping…')
  removeOwnerNote(dataDir, ownerToken)
  await listener.close()
  await workerListener?.close()
  await services.stop()
  return 0
}
