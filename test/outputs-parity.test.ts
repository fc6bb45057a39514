/**
 * The three features that write files share one writer (src/main/outputs/): the same folder of
 * photos through a batch, `clipdesk process` and a watched folder, with the same settings and
 * the same name template, gives the same file names and the same bytes; with no template, each
 * writes the names its default gives (src/shared/names.ts, docs/names.md). Real engine and model
 * (two small photos; the later runs reuse the first one's masks), real files, the built CLI.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, expect, it } from 'vitest'
import { composeServices } from '../src/main/compose-services'
import { DEFAULT_TEMPLATES, MIRRORS_FOLDER_NAME, outputNames } from '../src/shared/names'
import { until, settled } from './helpers/batches'
import { runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { scenePng } from './helpers/fixtures'
import { filesUnder, waitFor } from './helpers/watch'

const root = tempDir('clipdesk-parity-')
afterAll(() => rmSync(root, { recursive: true, force: true }))

const TEMPLATE = '{preset}/{name}-{variation}.{ext}'

it('a batch, clipdesk process and a watched folder write the same names and bytes', async () => {
  const photos = join(root, 'photos')
  mkdirSync(join(photos, 'day1'), { recursive: true })
  writeFileSync(join(photos, 'ball.png'), await scenePng())
  writeFileSync(
    join(photos, 'day1', 'shoe.jpg'),
    await sharp(await scenePng())
      .flop()
      .jpeg({ quality: 92 })
      .toBuffer()
  )
  const data = join(root, 'data')

  // clipdesk process, in its own process (it takes the data folder's lock, then gives it back).
  const processed = join(root, 'out-process')
  const cli = runCli(['process', photos, '--out', processed, '--template', TEMPLATE, '--data-dir', data])
  expect(cli.code, cli.stderr).toBe(0)

  // The app's services on the same data folder: a batch of the dropped folder, then the folder watched.
  const services = composeServices({ dataDir: data, role: 'app' })
  await services.start()
  try {
    const request = { mode: 'clipping' as const, output_format: 'png' as const, params: null, name_template: TEMPLATE }
    const batchOut = join(root, 'out-batch')
    const batch = await services.batches.create({ request, destination: batchOut })
    await services.batches.add(batch.id, [{ path: photos }])
    const done = await until(services.batches, batch.id, settled)
    expect(done.counts).toMatchObject({ total: 2, done: 2, failed: 0 })

    const folder = await services.watch.add({ path: photos, mode: 'clipping', output_format: 'png', name_template: TEMPLATE })
    await waitFor('both photos of the watched folder', () => services.watch.view(folder.id)!.counts.done === 2)

    // A batch mirrors a dropped folder under its own name; the other two write at the top of theirs.
    const trees = {
      process: processed,
      batch: join(batchOut, 'photos'),
      watch: join(photos, 'clipdesk-out')
    }
    const names = Object.fromEntries(
      Object.entries(trees).map(([k, dir]) => [
        k,
        filesUnder(dir).filter((f) => !f.startsWith('clipdesk-report.') && !f.startsWith('.clipdesk-process'))
      ])
    )
    expect(names.process).toEqual(['cut-out/ball-cut-out.png', 'day1/cut-out/shoe-cut-out.png'])
    expect(names.batch).toEqual(names.process)
    expect(names.watch).toEqual(names.process)
    for (const name of names.process!) {
      const bytes = readFileSync(join(trees.process, name))
      expect(readFileSync(join(trees.batch, name)).equals(bytes), `batch ${name}`).toBe(true)
      expect(readFileSync(join(trees.watch, name)).equals(bytes), `watch ${name}`).toBe(true)
    }
  } finally {
    await services.stop()
  }
})

it('with no template, each writes the names of its documented default, the same bytes', async () => {
  const photos = join(root, 'photos-default')
  mkdirSync(join(photos, 'day1'), { recursive: true })
  writeFileSync(join(photos, 'ball.png'), await scenePng())
  writeFileSync(
    join(photos, 'day1', 'shoe.jpg'),
    await sharp(await scenePng())
      .flop()
      .jpeg({ quality: 92 })
      .toBuffer()
  )
  const data = join(root, 'data-default')
  const processed = join(root, 'out-process-default')
  const cli = runCli(['process', photos, '--out', processed, '--data-dir', data])
  expect(cli.code, cli.stderr).toBe(0)

  const services = composeServices({ dataDir: data, role: 'app' })
  await services.start()
  try {
    const batchOut = join(root, 'out-batch-default')
    const batch = await services.batches.create({
      request: { mode: 'clipping', output_format: 'png', params: null },
      destination: batchOut
    })
    await services.batches.add(batch.id, [{ path: photos }])
    expect((await until(services.batches, batch.id, settled)).counts).toMatchObject({ total: 2, done: 2, failed: 0 })
    const folder = await services.watch.add({ path: photos, mode: 'clipping', output_format: 'png' })
    await waitFor('both photos of the watched folder', () => services.watch.view(folder.id)!.counts.done === 2)
    expect(services.watch.view(folder.id)!.name_template).toBe(DEFAULT_TEMPLATES.watch)

    const inputs = ['ball.png', 'day1/shoe.jpg']
    /** What the rule says a feature writes for the inputs: its default template, its folder mirroring. */
    const expected = (feature: 'batch' | 'process' | 'watch'): string[] =>
      inputs.flatMap((relPath) =>
        outputNames(
          {
            relPath: MIRRORS_FOLDER_NAME[feature] ? `photos-default/${relPath}` : relPath,
            template: DEFAULT_TEMPLATES[feature],
            mode: 'clipping',
            params: null,
            date: '',
            seq: 1
          },
          [{ variation: 'clipping', ext: 'png' }]
        )
      )
    const written = (dir: string): string[] =>
      filesUnder(dir).filter((f) => !f.startsWith('clipdesk-report.') && !f.startsWith('.clipdesk-process'))
    // The rule as documented: a catalogue's name for batches and the command, the file's word for a watched folder; a batch keeps the dropped folder's name.
    expect(expected('process')).toEqual(['ball.png', 'day1/shoe.png'])
    expect(expected('batch')).toEqual(['photos-default/ball.png', 'photos-default/day1/shoe.png'])
    expect(expected('watch')).toEqual(['ball.cut-out.png', 'day1/shoe.cut-out.png'])
    const trees = { process: processed, batch: batchOut, watch: join(photos, 'clipdesk-out') }
    for (const [feature, dir] of Object.entries(trees)) expect(written(dir), feature).toEqual(expected(feature as keyof typeof trees))
    for (let i = 0; i < inputs.length; i++) {
      const bytes = readFileSync(join(processed, expected('process')[i]!))
      expect(readFileSync(join(batchOut, expected('batch')[i]!)).equals(bytes), `batch ${inputs[i]}`).toBe(true)
      expect(readFileSync(join(trees.watch, expected('watch')[i]!)).equals(bytes), `watch ${inputs[i]}`).toBe(true)
    }
  } finally {
    await services.stop()
  }
})
