/**
 * Checks a loaded graph's inputs and outputs against its descriptor, so a wrong file or a wrong
 * descriptor is refused when the model is added, with the mismatch spelled out
 * ("expected shape [1, 3, 1024, 1024], got [1, 3, 320, 320]"), not at the first job.
 */
import type { IoMeta } from './session-worker'
import type { ModelDescriptor } from './descriptors'

export interface ResolvedIo {
  inputName: string
  outputName: string
}

const show = (shape: (number | string)[]): string => `[${shape.join(', ')}]`

/** A dimension matches when equal, or when the graph leaves it symbolic (or unknown, −1). */
const dimOk = (got: number | string, want: number): boolean => typeof got === 'string' || got === -1 || got === want

/** The input and output to use, or throws an Error whose message says what does not match. */
export function checkModelIo(d: ModelDescriptor, inputs: IoMeta[], outputs: IoMeta[]): ResolvedIo {
  const input = d.input.name === undefined ? inputs[0] : inputs.find((i) => i.name === d.input.name)
  if (!input) {
    throw new Error(
      `the model has no input named "${d.input.name}"; its inputs are ${inputs.map((i) => `"${i.name}"`).join(', ') || 'none'}`
    )
  }
  if (inputs.length > 1)
    throw new Error(
      `the model takes ${inputs.length} inputs (${inputs.map((i) => i.name).join(', ')}); a segmentation model takes one image`
    )
  const [w, h] = d.input.size
  const expected: (number | string)[] = d.input.dynamic ? [1, 3, 'height', 'width'] : [1, 3, h, w]
  const s = input.shape
  const fits =
    s.length === 4 &&
    dimOk(s[0]!, 1) &&
    dimOk(s[1]!, 3) &&
    (d.input.dynamic ? typeof s[2] === 'string' || s[2] === -1 : dimOk(s[2]!, h)) &&
    (d.input.dynamic ? typeof s[3] === 'string' || s[3] === -1 : dimOk(s[3]!, w))
  if (s.length > 0 && !fits) {
    const hint = !d.input.dynamic && s.length === 4 && typeof s[2] === 'string' ? ' (the model takes any size: describe it as dynamic)' : ''
    throw new Error(`input "${input.name}": expected shape ${show(expected)}, got ${show(s)}${hint}`)
  }
  const output = d.output.name === undefined ? outputs[0] : outputs.find((o) => o.name === d.output.name)
  if (!output) {
    throw new Error(
      `the model has no output named "${d.output.name}"; its outputs are ${outputs.map((o) => `"${o.name}"`).join(', ') || 'none'}`
    )
  }
  const o = output.shape
  const outFits =
    o.length >= 2 &&
    o.length <= 4 &&
    o.slice(0, -2).every((n) => typeof n === 'string' || n === 1 || n === -1) &&
    (d.input.dynamic || (dimOk(o[o.length - 2]!, h) && dimOk(o[o.length - 1]!, w)))
  if (o.length > 0 && !outFits) {
    throw new Error(
      `output "${output.name}": expected shape ${show(d.input.dynamic ? [1, 1, 'height', 'width'] : [1, 1, h, w])}, got ${show(o)}`
    )
  }
  return { inputName: input.name, outputName: output.name }
}
