/**
 * Colour names a parameter set's `background=` accepts besides hex values (a designer writes
 * `white`, `beige`), each one hex value in sRGB; stored and listed as that hex value
 * (docs/params.md, `background`). No Node, no DOM.
 */
export const COLOUR_NAMES: Readonly<Record<string, string>> = {
  white: '#FFFFFF',
  black: '#000000',
  grey: '#808080',
  gray: '#808080',
  'light-grey': '#D3D3D3',
  'light-gray': '#D3D3D3',
  beige: '#F5F5DC',
  cream: '#FFFDD0',
  red: '#FF0000',
  green: '#008000',
  blue: '#0000FF',
  yellow: '#FFFF00',
  orange: '#FFA500',
  pink: '#FFC0CB',
  purple: '#800080',
  brown: '#8B4513',
  navy: '#000080'
}
