/**
 * What an SVG input may contain once it is cleaned (`decode-svg.ts`): the elements and
 * attributes of static SVG 1.1/2 drawing. Anything not listed here is dropped, with its whole
 * subtree for elements: scripts, `foreignObject`, XInclude, animation, unknown namespaces and
 * editor metadata never reach the renderer.
 *
 * Filters are kept: they are common in design exports, and they are rendered only inside the
 * decode sandbox, whose time and memory limits stop a costly one (docs/robustness.md).
 */

const SHAPES = ['path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon']
const STRUCTURE = ['svg', 'g', 'defs', 'symbol', 'use', 'title', 'desc', 'a', 'switch']
const TEXT = ['text', 'tspan', 'textPath']
const PAINT_SERVERS = ['linearGradient', 'radialGradient', 'stop', 'pattern']
const CLIPS = ['clipPath', 'mask', 'marker']
const FILTERS = [
  'filter',
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feDistantLight',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'fePointLight',
  'feSpecularLighting',
  'feSpotLight',
  'feTile',
  'feTurbulence'
]

/** Elements kept. `image` is kept only with an inline raster `data:` URL (checked separately). */
export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([
  ...SHAPES,
  ...STRUCTURE,
  ...TEXT,
  ...PAINT_SERVERS,
  ...CLIPS,
  ...FILTERS,
  'image',
  'style'
])

/** Elements whose text content is kept (everything else keeps only child elements). */
export const TEXT_ELEMENTS: ReadonlySet<string> = new Set([...TEXT, 'title', 'desc', 'style'])

const GEOMETRY = [
  'x',
  'y',
  'width',
  'height',
  'rx',
  'ry',
  'cx',
  'cy',
  'r',
  'fx',
  'fy',
  'fr',
  'x1',
  'y1',
  'x2',
  'y2',
  'points',
  'd',
  'pathLength',
  'viewBox',
  'preserveAspectRatio',
  'transform',
  'dx',
  'dy',
  'rotate',
  'textLength',
  'lengthAdjust',
  'startOffset',
  'method',
  'spacing',
  'side',
  'offset'
]
const CORE = [
  'id',
  'class',
  'style',
  'version',
  'xmlns',
  'xmlns:xlink',
  'xml:space',
  'xml:lang',
  'lang',
  'href',
  'xlink:href',
  'systemLanguage'
]
const PRESENTATION = [
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'opacity',
  'clip-path',
  'clip-rule',
  'mask',
  'filter',
  'color',
  'display',
  'visibility',
  'overflow',
  'font',
  'font-family',
  'font-size',
  'font-style',
  'font-weight',
  'font-variant',
  'font-stretch',
  'text-anchor',
  'letter-spacing',
  'word-spacing',
  'text-decoration',
  'dominant-baseline',
  'alignment-baseline',
  'baseline-shift',
  'writing-mode',
  'direction',
  'unicode-bidi',
  'stop-color',
  'stop-opacity',
  'marker-start',
  'marker-mid',
  'marker-end',
  'marker',
  'mix-blend-mode',
  'isolation',
  'image-rendering',
  'shape-rendering',
  'text-rendering',
  'color-interpolation',
  'color-interpolation-filters',
  'paint-order',
  'vector-effect',
  'flood-color',
  'flood-opacity',
  'lighting-color'
]
const PAINT_AND_CLIP_UNITS = [
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'patternUnits',
  'patternContentUnits',
  'patternTransform',
  'clipPathUnits',
  'maskUnits',
  'maskContentUnits',
  'markerUnits',
  'markerWidth',
  'markerHeight',
  'refX',
  'refY',
  'orient'
]
const FILTER_ATTRIBUTES = [
  'filterUnits',
  'primitiveUnits',
  'in',
  'in2',
  'result',
  'stdDeviation',
  'operator',
  'radius',
  'k1',
  'k2',
  'k3',
  'k4',
  'mode',
  'values',
  'type',
  'tableValues',
  'slope',
  'intercept',
  'amplitude',
  'exponent',
  'kernelMatrix',
  'order',
  'divisor',
  'bias',
  'targetX',
  'targetY',
  'edgeMode',
  'preserveAlpha',
  'scale',
  'xChannelSelector',
  'yChannelSelector',
  'baseFrequency',
  'numOctaves',
  'seed',
  'stitchTiles',
  'surfaceScale',
  'diffuseConstant',
  'specularConstant',
  'specularExponent',
  'kernelUnitLength',
  'azimuth',
  'elevation',
  'z',
  'pointsAtX',
  'pointsAtY',
  'pointsAtZ',
  'limitingConeAngle'
]

/** Attributes kept on any allowed element (their values are still checked for references). */
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  ...GEOMETRY,
  ...CORE,
  ...PRESENTATION,
  ...PAINT_AND_CLIP_UNITS,
  ...FILTER_ATTRIBUTES
])

/** Raster types an inline `<image>` may carry; each is measured against the pixel limit. */
export const DATA_IMAGE_PREFIXES = [
  'data:image/png;base64,',
  'data:image/jpeg;base64,',
  'data:image/jpg;base64,',
  'data:image/gif;base64,',
  'data:image/webp;base64,'
]
