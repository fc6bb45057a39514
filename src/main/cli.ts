/**
 * `clipdesk` on plain Node: serve | process | check | keys | presets | watch | models | worker | workers. Never imports electron.
 * Each command's module is imported when it runs: `process` then loads neither BullMQ nor the
 * HTTP server, which is part of what a user waits for before the first cutout.
 */
import { escapeControls } from '../shared/text'
import { CliError } from './cli/args'
import { asksForHelp, commandHelp, COMMANDS, overview, unknownCommand } from './cli/help'
import { lastSession, machineCacheDir, prestartSessionWorker, startSandboxesAhead } from './engine/public-start'
import { APP_VERSION } from './version'
import { errorText } from '../shared/errors'

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  // Help and the version answer before any command module is loaded (nothing is opened or checked).
  if (command !== undefined && Object.hasOwn(COMMANDS, command) && asksForHelp(rest)) {
    console.log(commandHelp(command))
    return 0
  }
  // The commands that load a model start, while this thread loads the command's modules
  // (docs/pipeline.md, "Cold start"): the model's worker thread, which loads the native runtime
  // and builds the session the machine's last run used (models/last-session.ts), and the sandbox
  // processes the first photo's probe, decode and outputs need (sandbox/specs.ts).
  if (command === 'serve' || command === 'process') {
    prestartSessionWorker(lastSession(machineCacheDir()))
    startSandboxesAhead()
  }
  switch (command) {
    case 'serve':
      return (await import('./cli/serve')).runServe(rest)
    case 'process':
      return (await import('./cli/process')).runProcess(rest)
    case 'check':
      return (await import('./cli/check')).runCheck(rest)
    case 'keys':
      return (await import('./cli/keys')).runKeys(rest)
    case 'presets':
      return (await import('./cli/presets')).runPresets(rest)
    case 'watch':
      return (await import('./cli/watch')).runWatch(rest)
    case 'models':
      return (await import('./cli/models')).runModels(rest)
    case 'worker':
      return (await import('./cli/worker')).runWorker(rest)
    case 'workers':
      return (await import('./cli/workers')).runWorkers(rest)
    case '--version':
    case '-v':
    case 'version':
      console.log(`clipdesk ${APP_VERSION}`)
      return 0
    case 'help': {
      const about = rest[0]
      if (about === undefined) console.log(overview())
      else if (Object.hasOwn(COMMANDS, about)) console.log(commandHelp(about))
      else throw new CliError(unknownCommand(about))
      return 0
    }
    case undefined:
    case '--help':
    case '-h':
      console.log(overview())
      return command === undefined ? 1 : 0
    default:
      throw new CliError(unknownCommand(command))
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    // Messages may name files or carry a server's words: control characters are shown escaped.
    for (const line of `clipdesk: ${errorText(err)}`.split('\n')) console.error(escapeControls(line))
    process.exitCode = err instanceof CliError ? 2 : 1
  }
)
