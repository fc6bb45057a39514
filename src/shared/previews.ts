/**
 * The preview images of a batch item that the app shows (list thumbnails, the before/after
 * view), as the transports name them in an item's preview address.
 */
export const PREVIEW_KINDS = ['thumb-before', 'thumb-after', 'before', 'after'] as const
export type PreviewKind = (typeof PREVIEW_KINDS)[number]

/** Whether a path segment names a preview (addresses come from outside: checked before use). */
export function isPreviewKind(value: string): value is PreviewKind {
  return (PREVIEW_KINDS as readonly string[]).includes(value)
}
