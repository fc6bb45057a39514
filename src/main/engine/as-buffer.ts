/**
 * A Buffer over the same bytes (no copy): structured clone (worker and child-process messages)
 * hands a Buffer back as a plain Uint8Array.
 */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
