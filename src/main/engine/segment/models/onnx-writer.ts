/**
 * A minimal ONNX protobuf writer, for tests and the sample models in docs: enough of
 * `onnx.proto` (ModelProto → GraphProto → NodeProto, ValueInfoProto, TensorProto) to build
 * small graphs in code, so tests need no model files on disk and no protobuf dependency.
 * Field numbers are those of onnx/onnx.proto (IR version 8).
 */

type Field = Uint8Array

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n))
  const out: number[] = []
  do {
    let byte = Number(v & 0x7fn)
    v >>= 7n
    if (v !== 0n) byte |= 0x80
    out.push(byte)
  } while (v !== 0n)
  return out
}

function concat(parts: Field[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0)
  const out = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const int = (field: number, n: number | bigint): Field => Uint8Array.from([...varint((field << 3) | 0), ...varint(n)])
const bytes = (field: number, b: Uint8Array): Field => concat([Uint8Array.from([...varint((field << 3) | 2), ...varint(b.length)]), b])
const str = (field: number, s: string): Field => bytes(field, new TextEncoder().encode(s))
const f32 = (field: number, x: number): Field => {
  const b = new Uint8Array(5)
  b[0] = (field << 3) | 5
  new DataView(b.buffer).setFloat32(1, x, true)
  return b
}

/** A dimension: a number is fixed, a string is symbolic (dynamic). */
export type Dim = number | string

export interface TensorInfo {
  name: string
  /** 1 = float32 (the default), 7 = int64. */
  elemType?: number
  dims: Dim[]
}

export interface NodeSpec {
  op: string
  inputs: string[]
  outputs: string[]
  attrs?: Record<string, number | number[] | { f: number }>
}

export interface Initializer {
  name: string
  dims: number[]
  /** Float32 values (or int64 when `int64` is set). */
  values: number[]
  int64?: boolean
}

export interface GraphSpec {
  inputs: TensorInfo[]
  outputs: TensorInfo[]
  nodes: NodeSpec[]
  initializers?: Initializer[]
  opset?: number
}

function valueInfo(t: TensorInfo): Field {
  const dims = t.dims.map((d) => bytes(1, typeof d === 'number' ? int(1, d) : str(2, d)))
  const shape = bytes(2, concat(dims))
  const tensorType = bytes(1, concat([int(1, t.elemType ?? 1), shape]))
  return concat([str(1, t.name), bytes(2, tensorType)])
}

function attribute(name: string, v: number | number[] | { f: number }): Field {
  if (Array.isArray(v)) return concat([str(1, name), ...v.map((x) => int(8, x)), int(20, 7)])
  if (typeof v === 'object') return concat([str(1, name), f32(2, v.f), int(20, 1)])
  return concat([str(1, name), int(3, v), int(20, 2)])
}

function node(n: NodeSpec, i: number): Field {
  return concat([
    ...n.inputs.map((x) => str(1, x)),
    ...n.outputs.map((x) => str(2, x)),
    str(3, `n${i}`),
    str(4, n.op),
    ...Object.entries(n.attrs ?? {}).map(([k, v]) => bytes(5, attribute(k, v)))
  ])
}

function initializer(t: Initializer): Field {
  const raw = t.int64 ? new Uint8Array(new BigInt64Array(t.values.map(BigInt)).buffer) : new Uint8Array(new Float32Array(t.values).buffer)
  return concat([...t.dims.map((d) => int(1, d)), int(2, t.int64 ? 7 : 1), str(8, t.name), bytes(9, raw)])
}

/** The bytes of an ONNX model file holding `spec`. */
export function writeOnnxModel(spec: GraphSpec): Uint8Array {
  const graph = concat([
    ...spec.nodes.map((n, i) => bytes(1, node(n, i))),
    str(2, 'g'),
    ...(spec.initializers ?? []).map((t) => bytes(5, initializer(t))),
    ...spec.inputs.map((t) => bytes(11, valueInfo(t))),
    ...spec.outputs.map((t) => bytes(12, valueInfo(t)))
  ])
  return concat([int(1, 8), str(2, 'clipdesk-test'), bytes(7, graph), bytes(8, concat([str(1, ''), int(2, spec.opset ?? 13)]))])
}

/**
 * A segmentation-shaped graph: input [1, 3, H, W] → a 1×1 convolution with `weights` (one per
 * input channel) and `bias` → output [1, 1, H, W]. Its output at each pixel is a known function
 * of the input pixel, which is what tests check the pipeline against. `size` null: H and W are
 * symbolic (a dynamic-size model).
 */
export function convSegmentationModel(opts: {
  size: [number, number] | null
  weights: [number, number, number]
  bias?: number
  inputName?: string
  outputName?: string
  /** Also output a second, unrelated tensor first (as BiRefNet and IS-Net list side outputs). */
  sideOutput?: boolean
  /** Input channels declared (3 unless testing wrong shapes). */
  channels?: number
}): Uint8Array {
  const [h, w]: [Dim, Dim] = opts.size ? [opts.size[1], opts.size[0]] : ['height', 'width']
  const inputName = opts.inputName ?? 'input'
  const outputName = opts.outputName ?? 'output'
  const channels = opts.channels ?? 3
  const nodes: NodeSpec[] = [{ op: 'Conv', inputs: [inputName, 'W', 'B'], outputs: [outputName] }]
  const outputs: TensorInfo[] = [{ name: outputName, dims: [1, 1, h, w] }]
  if (opts.sideOutput) {
    nodes.push({ op: 'Neg', inputs: [outputName], outputs: ['side'] })
    outputs.unshift({ name: 'side', dims: [1, 1, h, w] })
  }
  const weights = channels === 3 ? opts.weights : Array.from({ length: channels }, (_, i) => opts.weights[i] ?? 0)
  return writeOnnxModel({
    inputs: [{ name: inputName, dims: [1, channels, h, w] }],
    outputs,
    nodes,
    initializers: [
      { name: 'W', dims: [1, channels, 1, 1], values: weights },
      { name: 'B', dims: [1], values: [opts.bias ?? 0] }
    ]
  })
}
