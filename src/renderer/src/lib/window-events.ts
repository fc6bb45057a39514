/**
 * Listens on the window for each event of `handlers` and returns the function that stops them
 * all, as an effect's cleanup: `useEffect(() => listenOnWindow({ keydown: onKey }), [])`. The
 * screens' window-wide keys and drops add and remove their listeners through it, so that no
 * listener is left behind by a cleanup that forgot one.
 */
type WindowHandlers = { [K in keyof WindowEventMap]?: (e: WindowEventMap[K]) => void }

export function listenOnWindow(handlers: WindowHandlers): () => void {
  const entries = Object.entries(handlers) as Array<[string, EventListener]>
  for (const [type, listener] of entries) window.addEventListener(type, listener)
  return () => {
    for (const [type, listener] of entries) window.removeEventListener(type, listener)
  }
}
