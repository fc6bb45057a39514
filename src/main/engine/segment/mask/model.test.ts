import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { failure } from '../../errors.fixtures'
import { Segmenter } from './mask'
import { clearModelCache, defaultModelDir, loadModel } from './model'

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

describe('loadModel (the package model)', () => {
  it('assembles medium from its chunks: size = sum of chunk files, ONNX header, cached', async () => {
    const dir = defaultModelDir()
    const manifest = JSON.parse(await readFile(path.join(dir, 'resources.json'), 'utf8')) as Record<
      string,
      { size: number; chunks: { hash: string }[] }
    >
    const entry = manifest['/models/medium']!
    let sum = 0
    for (const c of entry.chunks) sum += (await stat(path.join(dir, c.hash))).size

    const model = await loadModel('medium')
    expect(model.length).toBe(sum)
    expect(model.length).toBe(entry.size)
    // An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
    expect(model[0]).toBe(0x08)
    expect(Buffer.from(model.subarray(0, 64)).toString('latin1')).toContain('pytorch')
    // Cached: the same bytes, not a second 88 MB assembly.
    expect(await loadModel('medium')).toBe(model)
  })
})

describe('loadModel (a model folder built in the test)', () => {
  let dir: string
  let chunks: Buffer[]

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'clipdesk-model-'))
    chunks = [randomBytes(1000), randomBytes(1000), randomBytes(123)]
    let offset = 0
    const list = []
    for (const c of chunks) {
      await writeFile(path.join(dir, sha256(c)), c)
      list.push({ hash: sha256(c), offsets: [offset, offset + c.length] })
      offset += c.length
    }
    await writeFile(
      path.join(dir, 'resources.json'),
      JSON.stringify({ '/models/small': { chunks: list, size: offset, mime: 'application/octet-steam' } })
    )
  })

  afterEach(async () => {
    clearModelCache()
    await rm(dir, { recursive: true, force: true })
  })

  it('concatenates the chunks in manifest order', async () => {
    const model = await loadModel('small', { dir })
    expect(Buffer.from(model).equals(Buffer.concat(chunks))).toBe(true)
  })

  it('refuses a chunk whose SHA-256 does not match its name', async () => {
    const bad = Buffer.from(chunks[1]!)
    bad[500] = bad[500]! ^ 0xff
    await writeFile(path.join(dir, sha256(chunks[1]!)), bad)
    const err = await failure(loadModel('small', { dir }))
    expect(err.reason).toBe('model_unavailable')
    expect(err.message).toMatch(/corrupt/)
  })

  it('refuses a missing chunk, then succeeds once it is back (failures are not cached)', async () => {
    const file = path.join(dir, sha256(chunks[2]!))
    await unlink(file)
    const err = await failure(loadModel('small', { dir }))
    expect(err.reason).toBe('model_unavailable')
    expect(err.message).toMatch(/missing/)
    await writeFile(file, chunks[2]!)
    expect((await loadModel('small', { dir })).length).toBe(2123)
  })

  it('refuses a truncated chunk and a variant the manifest lacks', async () => {
    await writeFile(path.join(dir, sha256(chunks[0]!)), chunks[0]!.subarray(0, 999))
    expect((await failure(loadModel('small', { dir }))).reason).toBe('model_unavailable')
    expect((await failure(loadModel('medium', { dir }))).reason).toBe('model_unavailable')
  })

  it('refuses a folder without a manifest', async () => {
    await unlink(path.join(dir, 'resources.json'))
    expect((await failure(loadModel('small', { dir }))).reason).toBe('model_unavailable')
  })

  it('Segmenter.create reports a broken model as model_unavailable', async () => {
    // Valid chunks, but the bytes are not an ONNX graph: the session cannot be created.
    expect((await failure(Segmenter.create({ variant: 'small', modelDir: dir }))).reason).toBe('model_unavailable')
  })
})
