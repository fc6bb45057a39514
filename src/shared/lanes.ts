/**
 * A few at a time: `work` runs over `items` in `lanes` parallel lanes, each taking the next item
 * when its last one ends, in the order of the list; once `stop()` says so no lane takes another.
 * Used where a few files are handed on at a time (`clipdesk process`'s photos to the engine, the
 * browser app's uploads of a batch). No Node, no DOM.
 */
export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T) => Promise<void>,
  opts: { stop?: () => boolean; taken?: (count: number) => void } = {}
): Promise<void> {
  let next = 0
  const lane = async (): Promise<void> => {
    while (!opts.stop?.() && next < items.length) {
      const item = items[next++]!
      opts.taken?.(next)
      await work(item)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, lane))
}
