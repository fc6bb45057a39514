/**
 * ICC profiles written in code for the tests (no profile file is read from the machine): a
 * matrix/TRC RGB display profile of version 2, the kind Adobe RGB (1998) is.
 */

/** Adobe RGB (1998): primaries adapted to D50 and a 563/256 gamma, as in Adobe's own profile. */
export const ADOBE_RGB = {
  description: 'Adobe RGB (1998)',
  red: [0.60974, 0.31111, 0.01947],
  green: [0.20528, 0.62567, 0.06087],
  blue: [0.14919, 0.06322, 0.74457],
  gamma: 563 / 256
} as const

interface MatrixProfile {
  description: string
  red: readonly number[]
  green: readonly number[]
  blue: readonly number[]
  gamma: number
}

const D50 = [0.9642, 1.0, 0.8249]

function s15Fixed16(values: readonly number[]): Buffer {
  const out = Buffer.alloc(values.length * 4)
  values.forEach((v, i) => out.writeInt32BE(Math.round(v * 65536), i * 4))
  return out
}

function xyzTag(xyz: readonly number[]): Buffer {
  return Buffer.concat([Buffer.from('XYZ \0\0\0\0', 'latin1'), s15Fixed16(xyz)])
}

function descTag(text: string): Buffer {
  const ascii = Buffer.from(text + '\0', 'latin1')
  const head = Buffer.alloc(12)
  head.write('desc', 0, 'latin1')
  head.writeUInt32BE(ascii.length, 8)
  // Unicode language + count (0), ScriptCode code + count (0) + 67 bytes.
  return Buffer.concat([head, ascii, Buffer.alloc(8 + 2 + 1 + 67)])
}

function textTag(text: string): Buffer {
  return Buffer.concat([Buffer.from('text\0\0\0\0', 'latin1'), Buffer.from(text + '\0', 'latin1')])
}

function curveTag(gamma: number): Buffer {
  const out = Buffer.alloc(14)
  out.write('curv', 0, 'latin1')
  out.writeUInt32BE(1, 8)
  out.writeUInt16BE(Math.round(gamma * 256), 12)
  return out
}

const pad4 = (b: Buffer): Buffer => (b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]))

/** The bytes of a v2 matrix/TRC RGB display profile. */
export function matrixProfile(p: MatrixProfile = ADOBE_RGB): Buffer {
  const trc = curveTag(p.gamma)
  const tags: Array<[string, Buffer]> = [
    ['desc', descTag(p.description)],
    ['cprt', textTag('No copyright, use freely')],
    ['wtpt', xyzTag(D50)],
    ['rXYZ', xyzTag(p.red)],
    ['gXYZ', xyzTag(p.green)],
    ['bXYZ', xyzTag(p.blue)],
    ['rTRC', trc],
    ['gTRC', trc],
    ['bTRC', trc]
  ]
  const tableSize = 4 + tags.length * 12
  let offset = 128 + tableSize
  const table = Buffer.alloc(tableSize)
  table.writeUInt32BE(tags.length, 0)
  const data: Buffer[] = []
  tags.forEach(([sig, body], i) => {
    const padded = pad4(body)
    table.write(sig, 4 + i * 12, 'latin1')
    table.writeUInt32BE(offset, 8 + i * 12)
    table.writeUInt32BE(body.length, 12 + i * 12)
    data.push(padded)
    offset += padded.length
  })
  const header = Buffer.alloc(128)
  header.writeUInt32BE(offset, 0)
  header.writeUInt32BE(0x02100000, 8)
  header.write('mntrRGB XYZ ', 12, 'latin1')
  header.writeUInt16BE(2024, 24)
  header.writeUInt16BE(1, 26)
  header.writeUInt16BE(1, 28)
  header.write('acsp', 36, 'latin1')
  s15Fixed16(D50).copy(header, 68)
  return Buffer.concat([header, table, ...data])
}
