/**
 * Cleans a path inside a batch as it came from a renderer or a browser (`shoot/day1/a.jpg`):
 * '/' or '\' separated, no empty, `.` or `..` segments, no drive or root. Returns null when
 * nothing is left. The result is used under the destination, so it must never climb out.
 */
export function cleanRelPath(rel: string): string | null {
  const parts = rel
    .replace(/^[a-zA-Z]:/, '')
    .split(/[\\/]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '' && p !== '.' && p !== '..' && !p.includes('\0'))
  return parts.length > 0 ? parts.join('/') : null
}
