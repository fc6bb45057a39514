/**
 * The output folder, checked once before anything starts (a batch is made, `clipdesk process`
 * reads its first photo, a watched folder is saved): it exists or can be made, it is a folder,
 * files can be written in it, and its disk has room for the estimated output. The problem comes
 * back in plain words (`DestinationProblem`), with the system's text as its detail, instead of
 * every file failing one by one.
 *
 * Folders are made one level at a time (`makeFolder`), never with a recursive `mkdir`: Node's
 * recursive mkdir loops for ever on some paths (under `/proc`, it keeps a thread busy and never
 * answers). Every file-system call of the check runs under one deadline: a folder that does
 * not answer (a network drive that is away) fails the check with that reason, and the event
 * loop never waits on it.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, realpath, rm, stat, statfs, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { explainProblem } from '../../shared/explain'

/** What the check may take, in all, before it gives up. @default 5000 */
export const DESTINATION_CHECK_MS = 5_000

/**
 * Bytes of output per byte of input, for the space check: a cut-out PNG of a JPEG photo is
 * typically 2–4 times the JPEG (alpha, lossless), so 4 leaves a margin.
 */
export const OUTPUT_BYTES_PER_INPUT_BYTE = 4

/** The output a set of inputs is expected to need: `inputBytes` of photos, `filesPerPhoto` files written for each. */
export function estimateOutputBytes(inputBytes: number, filesPerPhoto = 1): number {
  return Math.ceil(inputBytes * OUTPUT_BYTES_PER_INPUT_BYTE * Math.max(1, filesPerPhoto))
}

/** Why the output folder cannot be used, in plain words; `detail`: the system's own text, if any. */
export class DestinationProblem extends Error {
  constructor(
    message: string,
    readonly detail: string | null = null
  ) {
    super(message)
    this.name = 'DestinationProblem'
  }
}

export interface DestinationOptions {
  /** Bytes the run is expected to write; the disk must have them free. */
  estimatedBytes?: number
  /** @default DESTINATION_CHECK_MS */
  timeoutMs?: number
}

type Errno = NodeJS.ErrnoException

/** Runs file-system steps under one deadline; a step past it fails the check with a plain reason. */
export class Deadline {
  private readonly end: number
  constructor(
    private readonly folder: string,
    private readonly ms: number
  ) {
    this.end = Date.now() + ms
  }

  async run<T>(step: () => Promise<T>): Promise<T> {
    const left = this.end - Date.now()
    const work = step()
    work.catch(() => undefined) // a step given up on may still fail later: expected, not unhandled
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DestinationProblem(
              `The folder did not answer within ${formatSeconds(this.ms)} (a network drive that is away, or a special folder): ${this.folder}`
            )
          ),
        Math.max(0, left)
      )
      timer.unref()
    })
    try {
      return await Promise.race([work, late])
    } finally {
      clearTimeout(timer)
    }
  }
}

const formatSeconds = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`)
const megabytes = (n: number): string => `${Math.max(1, Math.round(n / 2 ** 20)).toLocaleString('en')} MB`

/** A system error met while making `level` (inside `parent`), in plain words. */
function cannotMake(level: string, err: Errno): DestinationProblem {
  const parent = dirname(level)
  const why: Record<string, string> = {
    EACCES: `there is no permission to make folders in ${parent}`,
    EPERM: `there is no permission to make folders in ${parent}`,
    EROFS: `${parent} is read-only`,
    ENOSPC: 'the disk is full',
    ENOENT: `${parent} does not take new folders`,
    ENOTDIR: `${parent} is a file, not a folder`,
    ENAMETOOLONG: 'the name is too long for this disk'
  }
  const reason = why[err.code ?? ''] ?? explainProblem(err.message, 'output').message
  return new DestinationProblem(`The folder ${level} cannot be made: ${reason}`, err.message)
}

/**
 * Makes `dir` and the folders above it that are missing, one level at a time (each a plain
 * `mkdir`); throws `DestinationProblem` naming the level that cannot be made and why, or the
 * file that stands where a folder should be.
 */
export async function makeFolder(dir: string, deadline = new Deadline(dir, DESTINATION_CHECK_MS)): Promise<void> {
  const missing: string[] = []
  let current = resolve(dir)
  for (;;) {
    const info = await deadline.run(() => stat(current)).catch((err: Errno | DestinationProblem) => err)
    if (info instanceof DestinationProblem) throw info
    if (!(info instanceof Error)) {
      if (!info.isDirectory()) throw new DestinationProblem(`${current} is a file, not a folder`)
      break
    }
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR') {
      throw new DestinationProblem(
        `The folder ${current} cannot be opened: ${explainProblem(info.message, 'output').message}`,
        info.message
      )
    }
    missing.unshift(current)
    const up = dirname(current)
    if (up === current) break
    current = up
  }
  for (const level of missing) {
    const made = await deadline.run(() => mkdir(level)).catch((err: Errno | DestinationProblem) => err)
    if (made instanceof DestinationProblem) throw made
    if (made instanceof Error && made.code !== 'EEXIST') throw cannotMake(level, made)
  }
}

/**
 * Checks (and makes, when missing) the output folder `dir`: an absolute path, a folder, files
 * can be written in it (a hidden probe file, removed at once), and its disk has
 * `estimatedBytes` free. Returns the folder's absolute path; throws `DestinationProblem`.
 */
export async function checkDestination(dir: string, opts: DestinationOptions = {}): Promise<string> {
  const given = dir.trim()
  if (given === '') throw new DestinationProblem('Choose a folder for the results.')
  if (!isAbsolute(given))
    throw new DestinationProblem(`Choose the folder by its full path (e.g. /home/you/Pictures/Clipdesk), not "${given}".`)
  const folder = resolve(given)
  const timeoutMs = opts.timeoutMs ?? DESTINATION_CHECK_MS
  const deadline = new Deadline(folder, timeoutMs)
  await makeFolder(folder, deadline)

  const probe = join(folder, `.clipdesk-check-${randomBytes(4).toString('hex')}`)
  const wrote = await deadline.run(() => writeFile(probe, '', { flag: 'wx' })).catch((err: Errno | DestinationProblem) => err)
  if (wrote instanceof DestinationProblem) throw wrote
  if (wrote instanceof Error) {
    const readOnly = wrote.code === 'EROFS' || wrote.code === 'EACCES' || wrote.code === 'EPERM'
    throw new DestinationProblem(
      readOnly
        ? `The folder is read-only: ${folder}`
        : `Files cannot be written in ${folder}: ${explainProblem(wrote.message, 'output').message}`,
      wrote.message
    )
  }
  await deadline.run(() => rm(probe, { force: true })).catch(() => undefined)

  if (opts.estimatedBytes && opts.estimatedBytes > 0) {
    // Not every file system answers statfs (some network shares): then the space is not checked.
    const fs = await deadline.run(() => statfs(folder)).catch(() => null)
    const free = fs ? Number(fs.bavail) * Number(fs.bsize) : Infinity
    if (free < opts.estimatedBytes) {
      throw new DestinationProblem(
        `Not enough space on the disk of ${folder}: about ${megabytes(opts.estimatedBytes)} are needed, ${megabytes(free)} are free.`
      )
    }
  }
  // Kept by its real path: every later write refuses a link at the folder itself
  // (`contained-dir.ts`), so a folder swapped for a link since is caught.
  return deadline.run(() => realpath(folder))
}
