import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { Engine } from '../../src/main/engine/engine'
import type { EngineOptions } from '../../src/main/engine/options'
import { startHttpServer, type HttpListener } from '../../src/main/http/server'
import { json } from './http'

export function tempDir(prefix = 'clipdesk-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface TestServer {
  engine: Engine
  http: HttpListener
  /** An unlimited key. */
  key: string
  dataDir: string
  url(path: string): string
  close(): Promise<void>
}

/**
 * A real engine on a temp data folder with a real listener on 127.0.0.1.
 * `run: false` keeps jobs queued (no model run) for tests of the request layer only.
 */
export async function startTestServer(opts: Partial<EngineOptions> & { run?: boolean } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir()
  const engine = new Engine({ ...opts, dataDir })
  if (opts.run !== false) engine.start()
  const http = await startHttpServer(engine, { port: 0 })
  const { key } = engine.createKey({ credits: null })
  return {
    engine,
    http,
    key,
    dataDir,
    url: (path) => `${http.url}${path}`,
    async close() {
      await http.close()
      await engine.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/** Multipart body with a file part and text fields. */
export function multipart(fields: Record<string, string>, file?: { bytes: Buffer; type: string; name?: string; part?: string }): FormData {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (file) form.append(file.part ?? 'file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name ?? 'image')
  return form
}

/** POSTs a form to `/api/v1/upload` with `key` (the server's unlimited one by default): the status and the parsed body. */
export async function postUpload(server: TestServer, body: FormData, key = server.key): Promise<{ status: number; body: any }> {
  const res = await fetch(server.url('/api/v1/upload'), { method: 'POST', headers: { 'X-API-Key': key }, body })
  return { status: res.status, body: await json(res) }
}

/** Sends a refused upload: its status, code and details field; no job queued and no stored file after it. Returns the error. */
export async function expectRefusedUpload(server: TestServer, body: FormData, status: number, code: string, field?: string): Promise<any> {
  const before = server.engine.queuedCount()
  const stored = readdirSync(join(server.dataDir, 'uploads'))
  const res = await postUpload(server, body)
  expect(res.status).toBe(status)
  expect(res.body.error.code).toBe(code)
  if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field])
  expect(server.engine.queuedCount()).toBe(before)
  expect(readdirSync(join(server.dataDir, 'uploads'))).toEqual(stored)
  return res.body.error
}

/**
 * Uploads `image` as `name` with `fields` and waits for its job: accepted (202) and settled (200).
 * Returns the job's status body and its final file's bytes.
 */
export async function settledJob(
  server: TestServer,
  fields: Record<string, string>,
  image: { bytes: Buffer; name: string }
): Promise<{ body: Record<string, any>; bytes: Buffer }> {
  const accepted = await postUpload(server, multipart(fields, { bytes: image.bytes, type: 'image/png', name: image.name }))
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
  const { status, body } = await pollUntilSettled(server, accepted.body.job_id)
  expect(status, JSON.stringify(body)).toBe(200)
  return { body, bytes: Buffer.from(await (await fetch(body.final_url)).arrayBuffer()) }
}

/** Polls the status endpoint until the job leaves `pending`; returns the last answer. */
export async function pollUntilSettled(
  server: TestServer,
  jobId: string,
  key = server.key
): Promise<{ status: number; body: Record<string, any>; seen: Array<{ status: string; progress: number }> }> {
  const seen: Array<{ status: string; progress: number }> = []
  for (;;) {
    const res = await fetch(server.url(`/api/v1/status?job_id=${jobId}`), { headers: { 'X-API-Key': key } })
    const body = (await json(res)) as Record<string, any>
    seen.push({ status: body.status, progress: body.progress })
    if (body.state !== 'pending') return { status: res.status, body, seen }
    await new Promise((r) => setTimeout(r, 100))
  }
}
