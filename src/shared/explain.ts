/**
 * Problems in plain words. A file that fails in a batch, a watched folder or `clipdesk process`
 * carries the text of whatever refused it: the system (`EROFS: read-only file system, open
 * '/x/.a.png.1f2e.clipdesk-part'`), an image library (`VipsJpeg: premature end of JPEG image`)
 * or the engine. `explainProblem` turns that text into a sentence a designer can act on ("This
 * JPEG is damaged: it ends early", "The folder is read-only: /x") and keeps the original as the
 * detail, shown behind a toggle in the app and written beside the sentence in reports.
 *
 * One module for every feature (docs/vocabulary.md, "Problems"). It reads text only, with
 * plain substring checks: the text may hold a file name from outside. No Node, no DOM.
 */

export interface Explained {
  /** The problem in plain words. */
  message: string
  /** The text it came from, when it says more than `message` (repeated lines folded); null otherwise. */
  detail: string | null
}

/** Which side of the work the text is about, when known: reading an input or writing an output. */
export type ProblemSide = 'input' | 'output'

const FORMATS = 'PNG, JPEG, WebP, GIF, AVIF, TIFF, PSD or SVG'

/** The system's error code at the start of a Node file-system message (`EROFS: …`), if any. */
function errnoCode(text: string): string | null {
  for (const word of text.split(/[\s:,()]+/)) {
    if (word.length >= 4 && word.length <= 12 && word[0] === 'E' && word === word.toUpperCase() && /^E[A-Z]+$/.test(word)) {
      if (KNOWN_CODES.has(word)) return word
    }
  }
  return null
}

/** The quoted path of a Node file-system message (`…, open '/a/b'`), if any. */
function quotedPath(text: string): string | null {
  const start = text.indexOf(" '")
  if (start < 0) return null
  const end = text.indexOf("'", start + 2)
  return end > start + 2 ? text.slice(start + 2, end) : null
}

/** A path's folder ('/' or '\\' separated), for messages about writing into it. */
function folderOf(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'))
  return cut > 0 ? path.slice(0, cut) : path
}

/** An output's temp name (`.a.png.1f2e.clipdesk-part`) or its own name: the folder it is written into. */
function writtenFolder(path: string): string {
  return folderOf(path)
}

function guessSide(lower: string): ProblemSide | null {
  if (
    lower.includes('written') ||
    lower.includes('destination') ||
    lower.includes('output') ||
    lower.includes('clipdesk-part') ||
    lower.includes('mkdir')
  ) {
    return 'output'
  }
  if (lower.includes('be read') || lower.includes('reading') || lower.includes('input')) return 'input'
  return null
}

const KNOWN_CODES = new Set([
  'EROFS',
  'EACCES',
  'EPERM',
  'ENOSPC',
  'EDQUOT',
  'ENOTDIR',
  'EISDIR',
  'ENOENT',
  'ENAMETOOLONG',
  'EMFILE',
  'ENFILE',
  'EIO',
  'EBUSY',
  'ETIMEDOUT',
  'ELOOP',
  'EEXIST',
  'EXDEV'
])

function fileSystem(code: string, path: string | null, side: ProblemSide | null): string | null {
  const at = (p: string | null): string => (p ? `: ${p}` : '')
  const folder = path ? (side === 'input' ? folderOf(path) : writtenFolder(path)) : null
  switch (code) {
    case 'EROFS':
      return `The folder is read-only (its disk is mounted read-only)${at(folder)}`
    case 'EACCES':
    case 'EPERM':
      return side === 'input'
        ? `The file cannot be opened: there is no permission to read it${at(path)}`
        : `The folder is read-only: there is no permission to write in it${at(folder)}`
    case 'ENOSPC':
    case 'EDQUOT':
      return `The disk is full${folder ? `: no space left for ${folder}` : ''}`
    case 'ENOTDIR':
      return path ? `A part of ${path} is a file, not a folder` : 'A part of the path is a file, not a folder'
    case 'EISDIR':
      return `This is a folder, not a file${at(path)}`
    case 'ENOENT':
      return side === 'output' ? `The folder no longer exists${at(folder)}` : `The file is no longer there${at(path)}`
    case 'ENAMETOOLONG':
      return `The name is too long for this disk${at(path)}`
    case 'EMFILE':
    case 'ENFILE':
      return 'Too many files are open at once; retry in a moment'
    case 'EIO':
      return `The disk reported a read or write error${at(path)}`
    case 'EBUSY':
      return `The file is in use by another program${at(path)}`
    case 'ETIMEDOUT':
      return `The folder did not answer in time (a network drive that is away?)${at(folder)}`
    case 'ELOOP':
      return `The path goes through a symbolic link, which Clipdesk does not write through${at(path)}`
    default:
      return null
  }
}

/** The image format a decoder message is about, in a designer's spelling. */
function formatIn(lower: string): string | null {
  if (lower.includes('jpeg') || lower.includes('jpg')) return 'JPEG'
  if (lower.includes('png')) return 'PNG'
  if (lower.includes('webp')) return 'WebP'
  if (lower.includes('gif')) return 'GIF'
  if (lower.includes('tiff')) return 'TIFF'
  if (lower.includes('heif') || lower.includes('avif')) return 'AVIF'
  if (lower.includes('psd')) return 'PSD'
  if (lower.includes('svg')) return 'SVG'
  return null
}

function decoder(lower: string): string | null {
  const format = formatIn(lower)
  const endsEarly =
    lower.includes('premature end') || lower.includes('unexpected end') || lower.includes('truncated') || lower.includes('ends early')
  if (endsEarly) return `This ${format ?? 'image'} is damaged: it ends early (the file was cut short)`
  if (lower.includes('libpng read error') || lower.includes('crc error')) return 'This PNG is damaged: it cannot be read to the end'
  if (lower.includes('corrupt header') || lower.includes('header is damaged') || lower.includes('unable to parse')) {
    return `This ${format ?? 'image'} is damaged: its header cannot be read`
  }
  if (lower.includes('unsupported image format')) return `This file is damaged, or is not an image Clipdesk reads (${FORMATS})`
  if (lower.includes('not an image of a supported type') || lower.includes('not a supported image')) {
    return `This file is not an image Clipdesk reads (${FORMATS})`
  }
  if (lower.includes('cannot be decoded')) return `This ${format ?? 'image'} is damaged: it cannot be read`
  if (lower.includes('decoding the image took longer'))
    return 'Reading this image took too long and was stopped: it may be damaged or very large'
  if (lower.includes('memory') && lower.includes('needed more than')) {
    // The sandbox says which task ran out: reading the image, or making the outputs asked for.
    if (lower.startsWith('making the outputs'))
      return 'The outputs asked for are too large to make: they need more memory than allowed (ask for a smaller size)'
    return 'This image is too large to read: it needs more memory than allowed'
  }
  return null
}

function engine(lower: string): string | null {
  if (lower === 'the job was cancelled.' || lower === 'cancelled') return 'Stopped before it finished'
  if (lower.includes('ran longer than') && lower.includes('stopped')) return 'Processing took too long and was stopped'
  if (lower.includes('segmentation model') || lower.includes('cannot start the')) return 'The cut-out model could not run on this photo'
  return null
}

/** Lines of `raw` with repeats folded (a library that says the same thing five times). */
function folded(raw: string): string {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const line of raw.split('\n')) {
    const t = line.trim()
    if (t === '' || seen.has(t)) continue
    seen.add(t)
    lines.push(t)
  }
  return lines.join('\n')
}

/**
 * The plain-words version of a failure text, and the text itself as the detail. `side` says
 * whether the text is about reading the input or writing the output when the caller knows;
 * otherwise it is guessed from the words the features put before a system message.
 */
export function explainProblem(raw: string | null | undefined, side?: ProblemSide): Explained {
  const text = folded(raw ?? '')
  if (text === '') return { message: 'Failed for a reason that was not recorded', detail: null }
  const lower = text.toLowerCase()
  const code = errnoCode(text)
  const message = (code ? fileSystem(code, quotedPath(text), side ?? guessSide(lower)) : null) ?? decoder(lower) ?? engine(lower) ?? null
  if (message === null) return { message: text, detail: null }
  return { message, detail: text === message ? null : text }
}
