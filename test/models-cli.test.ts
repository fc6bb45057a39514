/**
 * `clipdesk models …`, `clipdesk serve --device`, `GET /api/v1/health` and the models IPC
 * methods, on a data folder whose default is a graph generated here (the built-in IS-Net is
 * listed but never loaded).
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Engine } from '../src/main/engine/engine'
import { convSegmentationModel } from '../src/main/engine/segment/models/onnx-writer'
import { createEngineHandlers } from '../src/main/app-api/engine-handlers'
import { waitFor } from './helpers/wait'
import { runCli, startServe } from './helpers/cli'
import { tempDir } from './helpers/engine'

const dataDir = tempDir('clipdesk-models-cli-')
const files = tempDir('clipdesk-model-files-')
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(files, { recursive: true, force: true })
})
const cli = (...args: string[]) => runCli(['models', ...args, '--data-dir', dataDir])

describe('clipdesk models', () => {
  it('lists the built-ins with their device as JSON', () => {
    const r = cli('list', '--json')
    expect(r.code, r.stderr).toBe(0)
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>
    expect(list.map((m) => m.name)).toEqual(['medium', 'small'])
    expect(list[0]).toMatchObject({
      name: 'medium',
      builtin: true,
      isDefault: true,
      device: 'auto',
      plannedDevice: 'cpu',
      activeDevice: null,
      inputSize: [1024, 1024]
    })
  })

  it('adds a generated model (by file name), makes it the default; refuses bad input with exit code 2', () => {
    const file = join(files, 'isnet-anime.onnx')
    writeFileSync(file, convSegmentationModel({ size: [1024, 1024], weights: [1, 0, 0], bias: 0.5 }))
    const added = cli('add', file, '--name', 'anime', '--json')
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ model: { name: 'anime', family: 'isnet-anime' }, test: { device: 'cpu' } })
    expect(cli('default', 'anime').stdout).toContain('Default model: anime')

    const unknown = cli('default', 'nope')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('No model named nope.')
    const builtin = cli('remove', 'medium')
    expect(builtin.code).toBe(2)
    expect(builtin.stderr).toContain('medium is built in and cannot be removed')
    const device = cli('device', 'tpu')
    expect(device.code).toBe(2)
    expect(device.stderr).toContain('expected one of auto, cpu, directml, coreml, cuda, webgpu, wasm, got "tpu"')
    const wrong = join(files, 'u2net.onnx')
    writeFileSync(wrong, convSegmentationModel({ size: [1024, 1024], weights: [1, 0, 0] }))
    const refused = cli('add', wrong)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('expected shape [1, 3, 320, 320], got [1, 3, 1024, 1024]')
    expect(
      (JSON.parse(cli('list', '--json').stdout) as Array<{ name: string; isDefault: boolean }>).map(
        (m) => `${m.name}${m.isDefault ? '*' : ''}`
      )
    ).toEqual(['medium', 'small', 'anime*'])
  })

  it('serve --device cuda without CUDA: the start line and /api/v1/health say the CPU runs it', async () => {
    const serve = await startServe(dataDir, ['--device', 'cuda'])
    try {
      const base = `http://127.0.0.1:${serve.port}`
      let health: Record<string, unknown> = {}
      await waitFor('the model to be loaded', async () => {
        const res = await fetch(`${base}/api/v1/health`)
        expect(res.status).toBe(200)
        health = (await res.json()) as Record<string, unknown>
        return health.device != null
      })
      expect(health).toMatchObject({ status: 'ok', model: 'anime', device_setting: 'cuda', device: 'cpu' })
      expect(String(health.device_warning)).toMatch(/^the cuda execution provider could not be used/)
      // How the session runs on this machine: the CPU's cores and the thread count chosen for it.
      expect(health.session).toMatchObject({ backend: 'native', arena: true, cpu: { logical: expect.any(Number) } })
      expect((health.session as { threads: number }).threads).toBeGreaterThan(0)
      await waitFor('the model line', () => /Model anime on/.test(serve.output()))
      expect(serve.output()).toMatch(/Model anime on cpu \(warning: the cuda execution provider could not be used .*running on the CPU\)/)
      // The OpenAPI document describes exactly the fields the endpoint answers with.
      const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, { get?: { security?: unknown[] } }>
        components: { schemas: { Health: { required: string[]; properties: Record<string, { enum?: unknown[] }> } } }
      }
      expect(doc.paths['/api/v1/health']?.get?.security).toEqual([])
      expect([...doc.components.schemas.Health.required].sort()).toEqual(Object.keys(health).sort())
      expect(doc.components.schemas.Health.properties.device?.enum).toContain(health.device)
      const post = await fetch(`${base}/api/v1/health`, { method: 'POST' })
      expect(post.status).toBe(405)
      expect(((await post.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed')
    } finally {
      serve.child.kill('SIGTERM')
      await serve.exited
    }
  })

  it('the same over IPC: list, refuse an unknown default (422 validation_failed), test run', async () => {
    const engine = new Engine({ dataDir, threads: 1 })
    try {
      const ipc = createEngineHandlers(engine)
      expect((await ipc.modelsList()).map((m) => m.name)).toEqual(['medium', 'small', 'anime'])
      const err = await ipc.modelsSetDefault('nope').catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'validation_failed' })
      const run = await ipc.modelsTest('anime')
      expect(run).toMatchObject({ name: 'anime', device: 'cpu' })
      // the sample's disc is red 230 on a ground of red 30: the graph's mask is the red value
      expect(run.foregroundShare).toBeGreaterThan(0.2)
      expect(run.foregroundShare).toBeLessThan(0.35)
    } finally {
      await engine.stop()
    }
  })
})
