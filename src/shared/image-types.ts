/**
 * The one list of file endings taken as images: what a dropped folder, `clipdesk process` and a
 * watched folder send to the engine, what the renderer offers and labels "not an image", and the
 * MIME type a browser upload is sent with when the browser knows none; and the MIME types an
 * upload may declare (`ACCEPTED_MIME_TYPES`). A file named on its own is always tried whatever
 * its ending: the engine reads what it really is (its bytes).
 * No Node, no DOM.
 */

/** Ending (lower case, no dot) → the MIME type of the upload. */
export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  psd: 'image/vnd.adobe.photoshop',
  svg: 'image/svg+xml'
}

/** Other names clients send for some of those types, accepted as the type itself. */
const MIME_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'image/tiff': ['image/x-tiff', 'application/tiff'],
  'image/vnd.adobe.photoshop': ['application/vnd.adobe.photoshop']
}

/** The MIME types accepted for an uploaded `file` (docs/api.md §6.2): each image type, then its other names. */
export const ACCEPTED_MIME_TYPES: readonly string[] = [...new Set(Object.values(IMAGE_TYPES))].flatMap((type) => [
  type,
  ...(MIME_ALIASES[type] ?? [])
])

/** The endings with their dot, as `path.extname` gives them: `.png`, `.jpg`, … */
export const IMAGE_EXTENSIONS: readonly string[] = Object.keys(IMAGE_TYPES).map((e) => `.${e}`)

/** The ending of a file name, lower case, without the dot ('' when there is none; a leading dot is a hidden name, not an ending). */
function endingOf(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1)
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : ''
}

/** Whether a file name ends like an image. */
export function isImageName(name: string): boolean {
  return Object.hasOwn(IMAGE_TYPES, endingOf(name))
}

/** The MIME type for a file name's ending, or null when it is not an image's. */
export function imageMimeOf(name: string): string | null {
  const ending = endingOf(name)
  return Object.hasOwn(IMAGE_TYPES, ending) ? IMAGE_TYPES[ending]! : null
}
