/**
 * `clipdesk` on plain Node: serve | process | keys | presets | watch | models | worker | workers. Never imports electron.
 * Each command's module is imported when it runs: `process` then loads neither BullMQ nor the
 * HTTP server, which is part of what a user waits for before the first cutout.
 */
import { escapeControls } from '../shared/text'
import { CliError } from './cli/args'

const USAGE = `Usage:
  clipdesk serve [--port 7878] [--allow-private-urls] [--paused] [--device <auto|cpu|cuda|…>]
                 [--queue redis://host:6379 [--no-local-worker] [--worker-listen <host:port>]] [--data-dir <dir>]
    (--worker-listen: a listener for workers on other machines, worker endpoints only; the API stays on 127.0.0.1)
  clipdesk process <files or folders...> --out <dir> [--mode clipping] [--params <set>] [--format png]
                   [--all-variations] [--template "{name}.{ext}"] [--overwrite] [--data-dir <dir>]
    (photos already done with the same settings are skipped; a report is written to --out)
  clipdesk keys create [--credits <n>|unlimited] [--name <text>] [--admin | --worker] [--data-dir <dir>]
  clipdesk keys list | revoke <id> | credit <id> <n>|unlimited [--data-dir <dir>]
  clipdesk presets create <name> <params> [--description <text>] [--replace] | list | delete <name> [--data-dir <dir>]
  clipdesk watch add <folder> [--no-recursive] [--mode clipping] [--params <set>] [--format png] [--out <dir>]
                     [--template "{name}.{variation}.{ext}"] [--move-originals] [--paused] [--data-dir <dir>]
  clipdesk watch list [--json] | pause|resume|remove <id or folder> | retry <id or folder> [<file id>] [--data-dir <dir>]
    (watched folders are processed while \`clipdesk serve\` or the app runs)
  clipdesk models list [--json] | add <file.onnx> [--name <name>] [--as <known>] [--descriptor <file.json>]
  clipdesk models remove <name> | default <name> | device <auto|cpu|directml|coreml|cuda|webgpu> | test <name>
  clipdesk worker --queue redis://host:6379 --coordinator http://host:7879 --key <worker key> [--name <text>] [--model medium]
  clipdesk workers [--json] [--data-dir <dir> | --coordinator http://host:7878 --key <owner key>]

The data folder defaults to $CLIPDESK_DATA_DIR, else the OS app-data folder "Clipdesk".`

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case 'serve':
      return (await import('./cli/serve')).runServe(rest)
    case 'process':
      return (await import('./cli/process')).runProcess(rest)
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
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE)
      return command === undefined ? 1 : 0
    default:
      throw new CliError(`unknown command "${command}"\n\n${USAGE}`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    // Messages may name files or carry a server's words: control characters are shown escaped.
    for (const line of `clipdesk: ${err instanceof Error ? err.message : String(err)}`.split('\n')) console.error(escapeControls(line))
    process.exitCode = err instanceof CliError ? 2 : 1
  }
)
