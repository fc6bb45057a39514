import { Engine } from '../engine/engine'
import { startHttpServer } from '../http/server'
import { CliError, parse } from './args'

/** `clipdesk serve`: the engine and the HTTP listener until SIGINT/SIGTERM. */
export async function runServe(args: string[]): Promise<number> {
  const { values, dataDir, positionals } = parse(args, {
    port: { type: 'string', default: '7878' },
    'allow-private-urls': { type: 'boolean', default: false }
  })
  if (positionals.length > 0) throw new CliError(`unexpected argument "${positionals[0]}"`)
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`expected --port to be 0–65535, got "${values.port}"`)

  const engine = new Engine({ dataDir, allowPrivateNetworkUrls: values['allow-private-urls'] as boolean })
  if (engine.keys.count() === 0) {
    const { key } = engine.keys.create({ credits: null, name: 'first key' })
    console.log(`API key: ${key}`)
  }
  // Signal handlers first: a supervisor may signal as soon as it reads the "Listening" line.
  let stop: () => void = () => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  process.once('SIGINT', () => stop())
  process.once('SIGTERM', () => stop())

  engine.start()
  const listener = await startHttpServer(engine, { port })
  console.log(`Data folder: ${dataDir}`)
  console.log(`Listening on ${listener.url}`)
  engine.warmUp().catch((err: Error) => console.error(`clipdesk: ${err.message}`))

  await stopped
  console.log('Stopping…')
  await listener.close()
  await engine.stop()
  return 0
}
