/**
 * What `clipdesk`, `clipdesk <command> --help` (or `-h`) and `clipdesk help <command>` print:
 * for each command its usage, its options with their defaults, and an example. Kept apart from
 * the commands' modules so that asking for help loads none of them (no engine, no model).
 * The words are the designer's (docs/vocabulary.md): "cut-out", "with shadow", not API names.
 */
import { closest } from '../../shared/suggest'

export interface OptionHelp {
  /** `--out <dir>` */
  flag: string
  text: string
  /** Shown as `(default: …)`. */
  default?: string
}

export interface CommandHelp {
  /** One line: what the command does. */
  summary: string
  usage: string[]
  options: OptionHelp[]
  examples: string[]
  /** Lines after the options. */
  notes?: string[]
}

const DATA_DIR: OptionHelp = {
  flag: '--data-dir <dir>',
  text: 'the data folder (jobs, keys, presets, settings)',
  default: '$CLIPDESK_DATA_DIR, else the app-data folder "Clipdesk"'
}
const HELP: OptionHelp = { flag: '-h, --help', text: 'show this help' }

export const COMMANDS: Record<string, CommandHelp> = {
  process: {
    summary: 'Cut out a folder of photos, without a server; run it again to continue after a stop.',
    usage: ['clipdesk process <files or folders...> --out <dir> [options]'],
    options: [
      { flag: '--out <dir>', text: 'where the results go (made if missing; checked before any photo is read)' },
      {
        flag: '--mode <mode>',
        text: 'clipping (cut-out, transparent) | background (on white) | params (custom settings or a preset)',
        default: 'params with --params, else clipping'
      },
      {
        flag: '--params <set>',
        text: 'a preset name or settings, e.g. ecommerce-white or "background=white;size=1600x1600"; done as it says (with --mode clipping, a key it cannot apply, such as a background or a shadow, is refused)'
      },
      {
        flag: '--format <format>',
        text: 'png | jpg | jpeg | webp | tiff | psd (layered, the cut-out as a layer mask)',
        default: "the preset's (a store preset: jpg), else png"
      },
      {
        flag: '--second-look <when>',
        text: 'auto (the model looks again where its first mask is doubtful) | off | always; the same as look=<when> in --params',
        default: 'auto'
      },
      {
        flag: '--all-variations',
        text: 'write every version of each photo (cut-out, on background, with shadow…), not only the main file'
      },
      {
        flag: '--template <text>',
        text: 'file names, tokens {name} {ext} {variation} {date} {preset} {n} ({n:3}: 001); "/" makes folders',
        default: '{name}.{ext}, or {name}.{variation}.{ext} with several files'
      },
      { flag: '--overwrite', text: 'process photos again that a previous run already did' },
      {
        flag: '--check <store>',
        text: "hold each file against a store's rules (amazon, ebay, etsy, shopify, google) or a rule file; a store preset is checked without it"
      },
      DATA_DIR,
      HELP
    ],
    examples: [
      'clipdesk process ~/Pictures/shoot --out ~/Pictures/shoot-cutouts',
      'clipdesk process shoot --out web --params ecommerce-white --format jpg',
      'clipdesk process shoot --out amazon --params amazon'
    ],
    notes: [
      'Photos already done with the same settings are skipped; Ctrl-C stops, and the same command continues.',
      'clipdesk-report.json and clipdesk-report.txt in --out list what failed and why. Exit code 0: all done; 1: some failed or stopped; 2: a usage mistake.',
      'Beside clipdesk serve (or the app with its API on) on the same data folder, it works through that server: its presets, no credits.'
    ]
  },
  check: {
    summary: 'Say which images a store will refuse (Amazon, eBay, Etsy, Shopify, Google), and why; any image, made here or not.',
    usage: ['clipdesk check <files or folders...> --for <store or rule file> [--json]'],
    options: [
      {
        flag: '--for <store>',
        text: "amazon | ebay | etsy | shopify | google, a rule set of yours (<data folder>/rules/<name>.json) or a rule file's path; repeat for several"
      },
      { flag: '--json', text: "one JSON document: every file with each store's verdict and reasons" },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk check ~/shop/catalogue --for amazon', 'clipdesk check out --for google --for agency.json --json'],
    notes: [
      'Checks the background along the edges and around the product, how much of the frame the product fills (the model finds it), a product cut by the edge, size, format, colours and transparency. Text and watermarks are not checked.',
      'Runs beside the app or a server. Exit code 0: every file ready; 1: some not ready (or unreadable); 2: a usage mistake.'
    ]
  },
  serve: {
    summary: 'Run the local API (/api/v1), the app in a browser, and the watched folders.',
    usage: ['clipdesk serve [options]'],
    options: [
      { flag: '--port <n>', text: 'port on 127.0.0.1 (0: any free port)', default: '7878' },
      { flag: '--allow-private-urls', text: 'let file_url reach local-network addresses' },
      { flag: '--paused', text: 'accept jobs but keep them queued until a start without --paused' },
      {
        flag: '--device <device>',
        text: 'auto | cpu | cuda | directml | coreml | webgpu, for this run',
        default: 'the stored setting (clipdesk models device)'
      },
      { flag: '--queue <redis://host:port>', text: 'studio mode: share the work through this Redis' },
      { flag: '--no-local-worker', text: 'studio mode: this machine only takes jobs, workers run them' },
      { flag: '--worker-listen <host:port>', text: 'studio mode: a listener for workers on other machines (worker endpoints only)' },
      { flag: '--lock-ms <ms>', text: "studio mode: how long a job stays a worker's without a heartbeat (from 1000)" },
      {
        flag: '--max-result-mb <n>',
        text: "studio mode: the most one worker's result upload may carry, all its files together (MB, from 1)",
        default: '8 × the upload limit (400)'
      },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk serve', 'clipdesk serve --port 8080 --allow-private-urls'],
    notes: ['On an empty data folder it prints a first (owner) API key.']
  },
  keys: {
    summary: 'Create, list, credit and revoke API keys.',
    usage: [
      'clipdesk keys create [--credits <n>|unlimited] [--name <text>] [--admin | --worker]',
      'clipdesk keys list',
      'clipdesk keys revoke <id>',
      'clipdesk keys credit <id> <n>|unlimited'
    ],
    options: [
      { flag: '--credits <n>|unlimited', text: 'jobs the key may run', default: 'unlimited' },
      { flag: '--name <text>', text: 'a name to recognise the key by' },
      { flag: '--admin', text: 'an owner key: also opens the app in a browser' },
      { flag: '--worker', text: 'a studio worker key' },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk keys create --credits 100 --name "web shop"', 'clipdesk keys credit key_1a2b3c 50']
  },
  presets: {
    summary: 'Create, list and delete presets (named settings for batches, watched folders and --params).',
    usage: [
      'clipdesk presets create <name> <settings> [--description <text>] [--replace]',
      'clipdesk presets list',
      'clipdesk presets delete <name>'
    ],
    options: [
      { flag: '--description <text>', text: 'what the preset is for' },
      { flag: '--replace', text: 'replace a preset of the same name' },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk presets create "Shop Beige" "background=beige;crop=subject;size=1600x1600;margin=6%"', 'clipdesk presets list'],
    notes: ['A name with spaces is kept as the display name; the preset is used by its short name (shop-beige), printed on create.']
  },
  watch: {
    summary: 'Watched folders: every photo that lands in one is cut out (while the app or clipdesk serve runs).',
    usage: [
      'clipdesk watch add <folder> [options]',
      'clipdesk watch list [--json]',
      'clipdesk watch pause|resume|remove <id or folder>',
      'clipdesk watch retry <id or folder> [<file id>]'
    ],
    options: [
      {
        flag: '--mode <mode>',
        text: 'clipping (cut-out) | background (on white) | params (custom settings or a preset)',
        default: 'params with --params, else clipping'
      },
      {
        flag: '--params <set>',
        text: 'a preset name or settings, done as it says (with --mode clipping, a key it cannot apply is refused)'
      },
      { flag: '--format <format>', text: 'png | jpg | jpeg | webp | tiff | psd', default: 'png' },
      { flag: '--out <dir>', text: 'where the results go', default: '<folder>/clipdesk-out' },
      {
        flag: '--template <text>',
        text: 'file names (tokens as for clipdesk process)',
        default: '{name}.{variation}.{ext} → photo.cut-out.png'
      },
      { flag: '--move-originals', text: 'move each original to <folder>/clipdesk-done once processed' },
      { flag: '--no-recursive', text: 'only the top level of the folder, not its sub-folders' },
      { flag: '--paused', text: 'add it paused' },
      { flag: '--json', text: 'list: the folders as JSON' },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk watch add ~/Pictures/Hot --params ecommerce-white', 'clipdesk watch list']
  },
  models: {
    summary: 'The segmentation models and the device they run on.',
    usage: [
      'clipdesk models list [--json]',
      'clipdesk models add <file.onnx> [--name <name>] [--as <known>] [--descriptor <file.json>]',
      'clipdesk models remove <name> | default <name> | test <name>',
      'clipdesk models device <auto|cpu|directml|coreml|cuda|webgpu>'
    ],
    options: [
      { flag: '--name <name>', text: 'add: the name to use the model by', default: "the file's name" },
      { flag: '--as <known>', text: 'add: treat the file as this known model family' },
      { flag: '--descriptor <file.json>', text: "add: the model's input and output description" },
      { flag: '--json', text: 'list: as JSON' },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk models list', 'clipdesk models add ~/.u2net/birefnet-general.onnx', 'clipdesk models default birefnet-general']
  },
  worker: {
    summary: 'Studio mode: run jobs of a coordinator on this machine.',
    usage: ['clipdesk worker --queue redis://host:6379 --coordinator http://host:7879 --key <worker key> [options]'],
    options: [
      { flag: '--queue <redis://host:port>', text: "the coordinator's Redis" },
      { flag: '--coordinator <url>', text: "the coordinator's worker listener" },
      { flag: '--key <key>', text: 'a worker key (clipdesk keys create --worker on the coordinator)' },
      { flag: '--name <text>', text: 'how the coordinator lists this worker', default: '<host name>:<process id>' },
      { flag: '--model <small|medium>', text: 'the model this worker keeps loaded', default: 'medium' },
      { flag: '--concurrency <n>', text: 'jobs run at once', default: '1' },
      { flag: '--threads <n>', text: "the model's threads", default: 'chosen for the machine' },
      { flag: '--lock-ms <ms>', text: "how long a job stays this worker's without a heartbeat (from 1000)" },
      HELP
    ],
    examples: ['clipdesk worker --queue redis://studio:6379 --coordinator http://studio:7879 --key cdk_…']
  },
  workers: {
    summary: "Studio mode: the coordinator's connected workers (device, jobs done, jobs per hour).",
    usage: ['clipdesk workers [--json] [--data-dir <dir> | --coordinator http://host:7878 --key <owner key>]'],
    options: [
      { flag: '--json', text: 'as JSON' },
      { flag: '--coordinator <url>', text: 'ask a coordinator on another machine' },
      { flag: '--key <key>', text: 'an owner key of that coordinator' },
      DATA_DIR,
      HELP
    ],
    examples: ['clipdesk workers', 'clipdesk workers --coordinator http://studio:7878 --key cdk_…']
  }
}

/** Whether `args` ask for help (`-h`, `--help`) before any `--` that ends the options. */
export function asksForHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false
    if (a === '-h' || a === '--help') return true
  }
  return false
}

/** The help of one command. */
export function commandHelp(name: string): string {
  const c = COMMANDS[name]
  if (!c) throw new Error(`no help for ${name}`)
  const width = Math.max(...c.options.map((o) => o.flag.length))
  const options = c.options.map((o) => `  ${o.flag.padEnd(width)}  ${o.text}${o.default ? ` (default: ${o.default})` : ''}`)
  return [
    `clipdesk ${name}: ${c.summary}`,
    '',
    'Usage:',
    ...c.usage.map((u) => `  ${u}`),
    '',
    'Options:',
    ...options,
    ...(c.notes ? ['', ...c.notes] : []),
    '',
    c.examples.length === 1 ? 'Example:' : 'Examples:',
    ...c.examples.map((e) => `  ${e}`)
  ].join('\n')
}

/** `clipdesk` alone, `clipdesk help`: every command in one line each. */
export function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length))
  return [
    'Usage: clipdesk <command> [options]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'clipdesk <command> --help shows its options, with their defaults and an example.',
    'clipdesk --version shows the version.'
  ].join('\n')
}

/**
 * What a command name that is none says: the nearest command when it is a slip (`proces` →
 * `process`, as options and preset names are answered), then the list of commands.
 */
export function unknownCommand(typed: string): string {
  const near = closest(typed, Object.keys(COMMANDS))
  return `unknown command "${typed}"${near ? `; did you mean "${near}"?` : ''}\n\n${overview()}`
}
