/**
 * The drag-out handler without Electron (its binary cannot run here): a trusted drag of a written
 * result starts Electron's drag with the checked path, anything else starts none. The checked
 * path comes from the real app API handlers over a real batch store (test/result-actions.test.ts
 * covers those); here the resolution is given.
 */
import { describe, expect, it } from 'vitest'
import { dragHandler, type DragEvent } from './drag'

function event(): DragEvent & { started: { file: string; icon: unknown }[] } {
  const started: { file: string; icon: unknown }[] = []
  return { started, sender: { startDrag: (item) => started.push(item) } }
}

describe('drag a result out of the window', () => {
  const target = { batch_id: 'b', item_id: 'i', output: 0 }
  it('starts the drag with the resolved file and its icon', async () => {
    const refused: string[] = []
    const handle = dragHandler({
      trusted: () => true,
      resolve: async () => '/out/photo.png',
      icon: (p) => `icon of ${p}`,
      refused: (m) => refused.push(m)
    })
    const e = event()
    await handle(e, target)
    expect(e.started).toEqual([{ file: '/out/photo.png', icon: 'icon of /out/photo.png' }])
    expect(refused).toEqual([])
  })
  it('starts nothing from another frame, or for a file that is not a written result', async () => {
    const refused: string[] = []
    const untrusted = event()
    await dragHandler({ trusted: () => false, resolve: async () => '/etc/passwd', icon: () => null, refused: (m) => refused.push(m) })(
      untrusted,
      target
    )
    const gone = event()
    await dragHandler({
      trusted: () => true,
      resolve: async () => Promise.reject(new Error('A link was put in place of the file')),
      icon: () => null,
      refused: (m) => refused.push(m)
    })(gone, target)
    expect(untrusted.started).toEqual([])
    expect(gone.started).toEqual([])
    expect(refused).toEqual(['refused: not the app window', 'the result cannot be dragged: A link was put in place of the file'])
  })
})
