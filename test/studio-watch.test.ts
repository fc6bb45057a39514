/**
 * Watched folders in studio mode, with the real model: the coordinator (`clipdesk serve
 * --queue … --no-local-worker`) watches a temp folder; one `clipdesk worker` process, which
 * knows nothing of the folder, runs the job through the queue and the workers' listener; the
 * cutout lands in the folder's output. Real Redis on a free loopback port, real chokidar.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import type { WatchFolderView } from '../src/shared/watch'
import { runCli, type ServeProcess } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import {
  REDIS_SERVER,
  createKey,
  startCoordinator,
  startRedis,
  startWorker,
  waitFor,
  workerListenPort,
  type RedisProcess,
  type WorkerProcess,
  stopStudio
} from './helpers/studio'

function list(data: string): WatchFolderView[] {
  const r = runCli(['watch', 'list', '--json', '--data-dir', data])
  if (r.code !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as WatchFolderView[]
}

describe.skipIf(!REDIS_SERVER)('watched folders in studio mode', () => {
  const root = tempDir('clipdesk-studio-watch-')
  const data = join(root, 'data')
  const inbox = join(root, 'inbox')
  const out = join(root, 'out')
  let redis: RedisProcess | undefined
  let serve: ServeProcess | undefined
  let worker: WorkerProcess | undefined

  afterAll(async () => {
    worker?.child.kill('SIGTERM')
    await worker?.exited
    await stopStudio({ serve, redis, data: root })
  })

  it("feeds the queue from the coordinator's folder; a worker does the job, the output lands in the folder's destination", async () => {
    redis = await startRedis()
    mkdirSync(inbox)
    const added = runCli(['watch', 'add', inbox, '--out', out, '--data-dir', data])
    expect(added.code, added.stderr).toBe(0)
    const workerKey = createKey(data, ['--worker'])
    serve = await startCoordinator(data, redis.url, ['--worker-listen', '127.0.0.1:0'])
    await waitFor('the coordinator to watch the folder', () => list(data)[0]?.state === 'active', 170_000)
    worker = await startWorker(redis.url, await workerListenPort(serve), workerKey, 'watch-worker')

    writeFileSync(join(inbox, 'ball.png'), await scenePng())
    await waitFor('the file to be processed', () => list(data)[0]!.counts.done === 1, 170_000)
    const files = readdirSync(out, { recursive: true }).map(String)
    expect(files).toEqual(['ball.cut-out.png'])
    expect((await sharp(join(out, 'ball.cut-out.png')).metadata()).channels).toBe(4)
    // The coordinator runs no jobs itself (--no-local-worker): the worker did this one.
    // (Its log line follows the coordinator's answer to its upload, so it may come a little later.)
    await waitFor("the worker's log of the job", () => /\tdone\t/.test(worker!.output()), 170_000)
    const workers = JSON.parse(runCli(['workers', '--json', '--data-dir', data]).stdout) as Array<{ name: string; jobs_done: number }>
    expect(workers).toEqual([expect.objectContaining({ name: 'watch-worker', jobs_done: 1 })])
    expect(existsSync(join(inbox, 'ball.png'))).toBe(true) // originals stay by default
  }, 300_000)
})
