/**
 * An input's IPTC-IIM record without the place the photo shows or was taken in (the table in
 * docs/pipeline.md, "Metadata"): the datasets of the application record (record 2) that name a
 * location are left out, everything else is copied as it came.
 *
 * The record is a plain list of datasets (IPTC-IIM 4.2, chapter 1.5): tag marker 0x1C, record
 * number, dataset number, then a 2-byte length, or, when its top bit is set, the count of the
 * bytes that hold the length (the "extended" form). Read with bounds-checked offsets; a record
 * that does not parse is not kept, since what it holds cannot be checked. Runs only inside the
 * decode sandbox.
 */

/** Record 2 datasets that hold a place. */
const PLACE_DATASETS = new Map([
  [26, 'Content Location Code'],
  [27, 'Content Location Name'],
  [90, 'City'],
  [92, 'Sub-location'],
  [95, 'Province/State'],
  [100, 'Country/Primary Location Code'],
  [101, 'Country/Primary Location Name']
])

const TAG_MARKER = 0x1c
const APPLICATION_RECORD = 2

export interface CleanIptc {
  /** Without the place datasets; null when none is left or the record does not parse. */
  withoutPlace: Buffer | null
  /** As it came (the input's record); null when it does not parse. */
  withPlace: Buffer | null
}

export function cleanIptc(record: Buffer): CleanIptc {
  const kept: Buffer[] = []
  let at = 0
  while (at < record.length) {
    // Writers pad the record (often to an even length) with zero bytes.
    if (record[at] === 0 && record.subarray(at).every((b) => b === 0)) break
    if (at + 5 > record.length || record[at] !== TAG_MARKER) return { withoutPlace: null, withPlace: null }
    const recordNumber = record[at + 1]!
    const dataset = record[at + 2]!
    let length = record.readUInt16BE(at + 3)
    let start = at + 5
    if (length & 0x8000) {
      const count = length & 0x7fff
      if (count === 0 || count > 4 || start + count > record.length) return { withoutPlace: null, withPlace: null }
      length = record.readUIntBE(start, count)
      start += count
    }
    const end = start + length
    if (end > record.length) return { withoutPlace: null, withPlace: null }
    if (!(recordNumber === APPLICATION_RECORD && PLACE_DATASETS.has(dataset))) kept.push(record.subarray(at, end))
    at = end
  }
  const withoutPlace = Buffer.concat(kept)
  return { withoutPlace: withoutPlace.length > 0 ? withoutPlace : null, withPlace: record }
}
