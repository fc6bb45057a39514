/**
 * Model descriptors: how to feed a segmentation model and read its answer. A model in the
 * registry is an ONNX file plus one of these. The built-ins are IS-Net from the installed
 * package; the known descriptors match the files rembg users have on disk (recognised by file
 * name or SHA-256); anything else is added with a custom descriptor.
 *
 * Normalisation: value = (pixel / scale − mean[c]) / std[c] for each plane c, planes in
 * `channelOrder`. The figures follow each model's published preprocessing (rembg's sessions and
 * the model cards); they were checked here with generated graphs of the same shapes, not with
 * the real weights (see docs/models.md).
 */

export type ChannelOrder = 'rgb' | 'bgr'
export type OutputKind = 'logits' | 'probabilities'
export type SpeedClass = 'fast' | 'medium' | 'slow' | 'very slow'

export interface ModelDescriptor {
  /** The descriptor family: a known id (`birefnet-general`, …) or `custom`. */
  family: string
  input: {
    /** Input tensor name; absent: the graph's first input. */
    name?: string
    /** Width × height fed to the model. */
    size: [number, number]
    /** true: the graph takes any spatial size (symbolic H and W); `size` is what we feed. */
    dynamic: boolean
    channelOrder: ChannelOrder
    /** Pixel divisor before mean/std (255 for most; IS-Net as distributed by IMG.LY uses 256). */
    scale: number
    mean: [number, number, number]
    std: [number, number, number]
  }
  output: {
    /** Output tensor name; absent: the graph's first output. */
    name?: string
    /** `logits`: a sigmoid is applied; `probabilities`: read as 0–1. */
    kind: OutputKind
  }
  /** Licence of the weights, as a note shown to the user. */
  licence: string
  /** Where the file comes from. */
  source: string
  speedClass: SpeedClass
}

const IMAGENET = { mean: [0.485, 0.456, 0.406] as [number, number, number], std: [0.229, 0.224, 0.225] as [number, number, number] }
const CENTRED = { mean: [0.5, 0.5, 0.5] as [number, number, number], std: [1, 1, 1] as [number, number, number] }

function known(
  family: string,
  size: number,
  norm: { mean: [number, number, number]; std: [number, number, number] },
  kind: OutputKind,
  licence: string,
  source: string,
  speedClass: SpeedClass
): ModelDescriptor {
  return {
    family,
    input: { size: [size, size], dynamic: false, channelOrder: 'rgb', scale: 255, ...norm },
    output: { kind },
    licence,
    source,
    speedClass
  }
}

const REMBG = 'https://github.com/danielgatis/rembg/releases (file'

/** Descriptors of the ONNX files rembg downloads (its release assets), by rembg model name. */
export const KNOWN_DESCRIPTORS: Record<string, ModelDescriptor> = {
  'birefnet-general': known(
    'birefnet-general',
    1024,
    IMAGENET,
    'logits',
    'MIT (BiRefNet, ZhengPeng7)',
    `${REMBG} BiRefNet-general-epoch_244.onnx)`,
    'very slow'
  ),
  'birefnet-general-lite': known(
    'birefnet-general-lite',
    1024,
    IMAGENET,
    'logits',
    'MIT (BiRefNet, ZhengPeng7)',
    `${REMBG} BiRefNet-general-bb_swin_v1_tiny-epoch_232.onnx)`,
    'slow'
  ),
  'birefnet-portrait': known(
    'birefnet-portrait',
    1024,
    IMAGENET,
    'logits',
    'MIT (BiRefNet, ZhengPeng7)',
    `${REMBG} BiRefNet-portrait-epoch_150.onnx)`,
    'very slow'
  ),
  'birefnet-massive': known(
    'birefnet-massive',
    1024,
    IMAGENET,
    'logits',
    'MIT (BiRefNet, ZhengPeng7)',
    `${REMBG} BiRefNet-massive-TR_DIS5K_TR_TEs-epoch_420.onnx)`,
    'very slow'
  ),
  'bria-rmbg-2.0': known(
    'bria-rmbg-2.0',
    1024,
    IMAGENET,
    'logits',
    'CC BY-NC 4.0 (BRIA RMBG-2.0): non-commercial use only; commercial use needs a licence from BRIA',
    'https://huggingface.co/briaai/RMBG-2.0 (onnx/model.onnx) or rembg (bria-rmbg-2.0.onnx)',
    'very slow'
  ),
  'ben2-base': known(
    'ben2-base',
    1024,
    { mean: [0, 0, 0], std: [1, 1, 1] },
    'probabilities',
    'MIT (BEN2 base, Prama LLC)',
    `${REMBG} BEN2_Base.onnx)`,
    'very slow'
  ),
  u2net: known('u2net', 320, IMAGENET, 'probabilities', 'Apache-2.0 (U²-Net, xuebinqin)', `${REMBG} u2net.onnx)`, 'medium'),
  u2netp: known('u2netp', 320, IMAGENET, 'probabilities', 'Apache-2.0 (U²-Net, xuebinqin)', `${REMBG} u2netp.onnx)`, 'fast'),
  'isnet-general-use': known(
    'isnet-general-use',
    1024,
    CENTRED,
    'probabilities',
    'Apache-2.0 (DIS / IS-Net, xuebinqin)',
    `${REMBG} isnet-general-use.onnx)`,
    'medium'
  ),
  'isnet-anime': known(
    'isnet-anime',
    1024,
    CENTRED,
    'probabilities',
    'Apache-2.0 (IS-Net anime, SkyTNT)',
    `${REMBG} isnet-anime.onnx)`,
    'medium'
  )
}

/** File names (lower case, without folders) that identify a known descriptor. */
const FILE_NAMES: Record<string, string> = {
  'birefnet-general-epoch_244.onnx': 'birefnet-general',
  'birefnet-general-bb_swin_v1_tiny-epoch_232.onnx': 'birefnet-general-lite',
  'birefnet-portrait-epoch_150.onnx': 'birefnet-portrait',
  'birefnet-massive-tr_dis5k_tr_tes-epoch_420.onnx': 'birefnet-massive',
  'bria-rmbg-2.0.onnx': 'bria-rmbg-2.0',
  'ben2_base.onnx': 'ben2-base',
  'u2net.onnx': 'u2net',
  'u2netp.onnx': 'u2netp',
  'isnet-general-use.onnx': 'isnet-general-use',
  'isnet-anime.onnx': 'isnet-anime'
}

/**
 * SHA-256 digests of published files. Only digests confirmed against a downloaded file belong
 * here; none could be downloaded where this was written, so recognition is by file name (or
 * `--as`) until they are filled in. The lookup is in place so adding one is a one-line change.
 */
export const KNOWN_SHA256: Record<string, string> = {}

/** The known descriptor a file is recognised as, by SHA-256 first, then by name; or null. */
export function recogniseModel(fileName: string, sha256: string): string | null {
  const bySha = KNOWN_SHA256[sha256.toLowerCase()]
  if (bySha) return bySha
  const base = fileName.split(/[\\/]/).pop()!.toLowerCase()
  if (FILE_NAMES[base]) return FILE_NAMES[base]!
  // rembg's own names with `.onnx` (e.g. `birefnet-general.onnx`, as the u2net family is saved)
  const stem = base.endsWith('.onnx') ? base.slice(0, -5) : base
  return stem in KNOWN_DESCRIPTORS ? stem : null
}

/** IS-Net as shipped by `@imgly/background-removal-data`: 1024², (p/256 − 0.5), probabilities. */
export const ISNET_BUILTIN: Omit<ModelDescriptor, 'family'> = {
  input: { size: [1024, 1024], dynamic: false, channelOrder: 'rgb', scale: 256, mean: [0.5, 0.5, 0.5], std: [1, 1, 1] },
  output: { name: 'output', kind: 'probabilities' },
  licence: 'Apache-2.0 (DIS / IS-Net weights); package by IMG.LY under AGPL-3.0',
  source: 'built in (@imgly/background-removal-data)',
  speedClass: 'medium'
}

/** Checks a descriptor given by a user (JSON); returns the problems, none when usable. */
export function descriptorProblems(d: unknown): string[] {
  const p: string[] = []
  const o = d as Partial<ModelDescriptor> | null
  if (typeof o !== 'object' || o === null) return ['the descriptor must be a JSON object']
  const i = o.input
  if (typeof i !== 'object' || i === null) return ['input: missing']
  const size = i.size
  if (!Array.isArray(size) || size.length !== 2 || !size.every((n) => Number.isInteger(n) && n >= 8 && n <= 4096))
    p.push('input.size: expected [width, height], whole numbers from 8 to 4096')
  if (typeof i.dynamic !== 'boolean') p.push('input.dynamic: expected true or false')
  if (i.channelOrder !== 'rgb' && i.channelOrder !== 'bgr') p.push('input.channelOrder: expected rgb or bgr')
  if (typeof i.scale !== 'number' || !(i.scale > 0)) p.push('input.scale: expected a positive number (255 for most models)')
  for (const k of ['mean', 'std'] as const) {
    const v = i[k]
    if (!Array.isArray(v) || v.length !== 3 || !v.every((n) => Number.isFinite(n))) p.push(`input.${k}: expected three numbers`)
  }
  if (Array.isArray(i.std) && i.std.some((n) => n === 0)) p.push('input.std: must not be 0')
  if (i.name !== undefined && typeof i.name !== 'string') p.push('input.name: expected a string')
  const out = o.output
  if (typeof out !== 'object' || out === null) p.push('output: missing')
  else {
    if (out.kind !== 'logits' && out.kind !== 'probabilities') p.push('output.kind: expected logits or probabilities')
    if (out.name !== undefined && typeof out.name !== 'string') p.push('output.name: expected a string')
  }
  return p
}
