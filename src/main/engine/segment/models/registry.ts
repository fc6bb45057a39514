/**
 * The model registry: the built-in IS-Net variants plus the ONNX files the user added, each
 * with its descriptor, the default model and the device setting. Stored in the engine's
 * database (`models` table, `meta` rows), so the app, `clipdesk serve` and the CLI share it.
 */
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { DEVICES, MODEL_NAME_PATTERN, type Device, type ModelInfo } from '../../../../shared/models'
import { EngineError, JobFailure } from '../../errors'
import type { SegmenterModel } from '../mask/mask'
import { builtinModelId, type ModelVariant } from '../mask/model'
import type { Db } from '../../store/db'
import { descriptorProblems, ISNET_BUILTIN, KNOWN_DESCRIPTORS, recogniseModel, type ModelDescriptor } from '../session/descriptors'
import { resolveDevice } from '../session/devices'
import { assertMemoryFor } from './memory'
import { prepared } from '../../store/statements'
import { errorText } from '../../../../shared/errors'
import { contentHash } from '../../content-hash'

/** The built-in models: name → variant and approximate file size (for listings). */
export const BUILTIN_MODELS: Record<string, { variant: ModelVariant; bytes: number; speedClass: string }> = {
  medium: { variant: 'medium', bytes: 88_000_000, speedClass: 'medium' },
  small: { variant: 'small', bytes: 44_000_000, speedClass: 'medium' }
}

export interface RegisteredModel {
  name: string
  family: string
  builtin: boolean
  variant?: ModelVariant
  path: string | null
  sha256: string | null
  bytes: number
  descriptor: ModelDescriptor
}

interface ModelRow {
  name: string
  family: string
  path: string
  sha256: string
  bytes: number
  descriptor: string
}

export interface AddModelRequest {
  file: string
  name?: string
  /** A known descriptor id to use whatever the file is called. */
  as?: string
  /** A custom descriptor (for files no known descriptor fits). */
  descriptor?: unknown
}

const invalid = (field: string, issue: string, message = issue): EngineError =>
  new EngineError('validation_failed', message, { details: [{ field, issue }] })

export class ModelRegistry {
  constructor(
    private readonly db: Db,
    private readonly fallbackDefault: string = 'medium'
  ) {}

  /** Every model, built-ins first. */
  all(): RegisteredModel[] {
    const builtins = Object.entries(BUILTIN_MODELS).map(([name, b]) => this.builtin(name, b.variant))
    const rows = prepared(
      this.db,
      'SELECT name, family, path, sha256, bytes, descriptor FROM models ORDER BY name'
    ).all() as unknown as ModelRow[]
    return [...builtins, ...rows.map(toModel)]
  }

  get(name: string): RegisteredModel | null {
    const b = BUILTIN_MODELS[name]
    if (b) return this.builtin(name, b.variant)
    const row = prepared(this.db, 'SELECT name, family, path, sha256, bytes, descriptor FROM models WHERE name = ?').get(name) as unknown as
      | ModelRow
      | undefined
    return row ? toModel(row) : null
  }

  /** The model a job without `model=` uses. A default that was removed falls back to the built-in. */
  defaultModel(): string {
    const v = this.meta('default-model')
    return v && this.get(v) ? v : this.fallbackDefault
  }

  setDefault(name: string): void {
    if (!this.get(name)) throw this.unknown(name, 'name')
    this.setMeta('default-model', name)
  }

  /** The device setting (`auto` unless set). */
  device(): Device {
    const v = this.meta('device')
    return (DEVICES as readonly string[]).includes(v ?? '') ? (v as Device) : 'auto'
  }

  setDevice(device: string): void {
    if (!(DEVICES as readonly string[]).includes(device)) throw invalid('device', `expected one of ${DEVICES.join(', ')}, got "${device}"`)
    this.setMeta('device', device)
  }

  /**
   * Checks and records a model file: its name, which descriptor fits it (SHA-256, file name,
   * `as` or a custom descriptor). Does not load it: `ModelPool.tryModel` does that, and the
   * caller removes the entry again if the load fails (see `Engine.addModel`).
   */
  async register(req: AddModelRequest): Promise<RegisteredModel> {
    const file = path.resolve(req.file)
    let info
    try {
      info = await stat(file)
    } catch {
      throw invalid('file', `no file at ${file}`)
    }
    if (!info.isFile()) throw invalid('file', `${file} is not a file`)
    const base = path
      .basename(file)
      .toLowerCase()
      .replace(/\.onnx$/, '')
    const name = req.name ?? base.replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]+/, '')
    if (!MODEL_NAME_PATTERN.test(name))
      throw invalid('name', `a model name is 1–64 of a–z, 0–9, ".", "_", "-" starting with a letter or digit, got "${name}"`)
    if (this.get(name)) throw invalid('name', `a model named ${name} already exists`)
    const side = 1024
    assertMemoryFor(name, info.size, side)
    const bytes = await readFile(file)
    const sha256 = contentHash(bytes)
    if (bytes.length < 16) throw invalid('file', `${file} is not an ONNX model (${bytes.length} bytes)`)
    let family: string
    let descriptor: ModelDescriptor
    if (req.descriptor !== undefined) {
      const problems = descriptorProblems(req.descriptor)
      if (problems.length > 0)
        throw new EngineError('validation_failed', `The descriptor is not usable: ${problems.join('; ')}`, {
          details: problems.map((issue) => ({ field: 'descriptor', issue }))
        })
      family = 'custom'
      descriptor = { ...(req.descriptor as ModelDescriptor), family }
    } else {
      const known = req.as ?? recogniseModel(file, sha256)
      if (!known) {
        throw invalid(
          'as',
          `not a known model file; say which it is (--as ${Object.keys(KNOWN_DESCRIPTORS).join('|')}) or give a custom descriptor`,
          `${path.basename(file)} is not a known model file; say which it is with --as <known descriptor> or give a custom descriptor (docs/models.md).`
        )
      }
      const d = KNOWN_DESCRIPTORS[known]
      if (!d) throw invalid('as', `unknown descriptor "${known}"; expected one of ${Object.keys(KNOWN_DESCRIPTORS).join(', ')}`)
      family = known
      descriptor = d
    }
    prepared(this.db, 'INSERT INTO models (name, family, path, sha256, bytes, descriptor, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      name,
      family,
      file,
      sha256,
      bytes.length,
      JSON.stringify(descriptor),
      Date.now()
    )
    return this.get(name)!
  }

  /** Removes an added model. Built-ins cannot be removed; a removed default falls back. */
  remove(name: string): void {
    if (BUILTIN_MODELS[name]) throw invalid('name', `${name} is built in and cannot be removed`)
    const r = prepared(this.db, 'DELETE FROM models WHERE name = ?').run(name)
    if (Number(r.changes) === 0) throw this.unknown(name, 'name')
    if (this.meta('default-model') === name) prepared(this.db, "DELETE FROM meta WHERE key = 'default-model'").run()
  }

  /**
   * An added model for a session, if memory allows it (`freeing`: what the session it replaces
   * gives back). Its file is read when the session needs it (not when the machine's optimised
   * copy serves) and must still be the one that was added (SHA-256).
   */
  modelSource(m: RegisteredModel, freeing: number): SegmenterModel {
    const { path, sha256 } = m
    if (!path || !sha256) throw new JobFailure('model_unavailable', `${m.name} is built in`)
    assertMemoryFor(m.name, m.bytes, Math.max(...m.descriptor.input.size), freeing)
    const load = async (): Promise<Uint8Array> => {
      let bytes: Buffer
      try {
        bytes = await readFile(path)
      } catch (err) {
        throw new JobFailure('model_unavailable', `the file of model ${m.name} (${path}) cannot be read: ${errorText(err)}`)
      }
      const sha = contentHash(bytes)
      if (sha !== sha256)
        throw new JobFailure(
          'model_unavailable',
          `the file of model ${m.name} (${path}) changed since it was added (SHA-256 ${sha.slice(0, 12)}…, expected ${sha256.slice(0, 12)}…); add it again`
        )
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
    return { key: this.modelId(m), load, descriptor: m.descriptor }
  }

  /** Names the model's weights in the machine's caches (as the session does: `Segmenter.create`). */
  modelId(m: RegisteredModel): string {
    return m.builtin ? builtinModelId(m.variant!) : `${m.name}@${m.sha256!.slice(0, 16)}`
  }

  /** What `models list` shows, with the pool's view of each model's session. */
  info(
    m: RegisteredModel,
    session: { activeDevice: ModelInfo['activeDevice']; deviceWarning: string | null; settings: ModelInfo['session'] } | null,
    device: Device = this.device(),
    saved: ModelInfo['session'] = null
  ): ModelInfo {
    return {
      name: m.name,
      family: m.family,
      builtin: m.builtin,
      isDefault: m.name === this.defaultModel(),
      bytes: m.bytes,
      sha256: m.sha256,
      path: m.path,
      inputSize: m.descriptor.input.size,
      dynamic: m.descriptor.input.dynamic,
      outputKind: m.descriptor.output.kind,
      licence: m.descriptor.licence,
      source: m.descriptor.source,
      speedClass: m.descriptor.speedClass,
      device,
      plannedDevice: resolveDevice(device),
      activeDevice: session?.activeDevice ?? null,
      deviceWarning: session?.deviceWarning ?? null,
      resident: session !== null,
      session: session?.settings ?? saved
    }
  }

  unknown(name: string, field: string): EngineError {
    return new EngineError('validation_failed', `No model named ${name}.`, {
      details: [
        {
          field,
          issue: `unknown model; expected one of ${this.all()
            .map((m) => m.name)
            .join(', ')}`
        }
      ]
    })
  }

  private builtin(name: string, variant: ModelVariant): RegisteredModel {
    const descriptor: ModelDescriptor = {
      family: 'builtin',
      ...ISNET_BUILTIN,
      speedClass: BUILTIN_MODELS[name]!.speedClass as ModelDescriptor['speedClass']
    }
    return { name, family: 'builtin', builtin: true, variant, path: null, sha256: null, bytes: BUILTIN_MODELS[name]!.bytes, descriptor }
  }

  private meta(key: string): string | null {
    const row = prepared(this.db, 'SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined
    return row?.value ?? null
  }

  private setMeta(key: string, value: string): void {
    prepared(this.db, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }
}

function toModel(r: ModelRow): RegisteredModel {
  return {
    name: r.name,
    family: r.family,
    builtin: false,
    path: r.path,
    sha256: r.sha256,
    bytes: Number(r.bytes),
    descriptor: JSON.parse(r.descriptor) as ModelDescriptor
  }
}
