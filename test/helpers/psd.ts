/**
 * ag-psd as the tests read their PSDs in Node: it makes 8-bit image data through a canvas unless
 * given a factory, and Node has none; plain image data objects are all a test reads. (The engine
 * sets its own before each read: `decode-psd.ts`.)
 */
import { initializeCanvas } from 'ag-psd'

type CreateImageData = NonNullable<Parameters<typeof initializeCanvas>[1]>

export function psdWithoutCanvas(): void {
  initializeCanvas(
    () => {
      throw new Error('no canvas')
    },
    ((width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) })) as unknown as CreateImageData
  )
}
