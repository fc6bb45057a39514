/**
 * Names are text, not commands: a file name (or an error message) carrying ESC sequences, a
 * newline or a bidi override (U+202E) never reaches a terminal or a text report raw, and never
 * makes it into an output name. Real files, real SQLite, the built CLI; no model run (a cheap
 * processor for the watched folder, `alpha=keep` on opaque images for the engine).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BatchService } from '../src/main/batches/service'
import { Engine } from '../src/main/engine/engine'
import { openDatabase } from '../src/main/engine/store/db'
import { featureTablesOf } from '../src/main/engine/store/feature-tables'
import { WatchService } from '../src/main/watch/service'
import { settled, until } from './helpers/batches'
import { runCli } from './helpers/cli'
import { tempDir } from './helpers/engine'
import { tinyPng } from './helpers/fixtures'
import { FakeProcessor, filesUnder, waitFor } from './helpers/watch'

const root = tempDir('clipdesk-names-text-')
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Control characters (C0, DEL, C1) and the bidi marks that must never be shown raw or written in a name. */
const NOT_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const ESC = '\x1b'
/** Clears the screen, then starts a line that looks like the tool's own. */
const EVIL = `evil${ESC}[2J${ESC}[H\nfailed #1 all fine\u202egnp.png`

describe('names are text', () => {
  it('clipdesk watch list shows a watched file named with ESC sequences and a newline escaped, on its one line', async () => {
    const data = join(root, 'watch-data')
    const inbox = join(root, 'inbox')
    mkdirSync(data, { recursive: true })
    mkdirSync(inbox)
    const db = openDatabase(join(data, 'clipdesk.db'))
    const fake = new FakeProcessor(join(root, 'fake-results'))
    fake.fail = (job) =>
      job.filename.includes('evil') ? { code: 'pipeline_error', message: `broken ${ESC}[31mred${ESC}[0m\nforged` } : null
    const svc = new WatchService({
      tables: featureTablesOf(db),
      processor: fake,
      stableMs: 200,
      pollMs: 20,
      syncMs: 100,
      log: () => undefined
    })
    try {
      await svc.start()
      const { id } = await svc.add({ path: inbox })
      writeFileSync(join(inbox, EVIL), await tinyPng())
      writeFileSync(join(inbox, `ok${ESC}]0;title\x07\u202e.png`), await tinyPng(9, 9))
      await waitFor('one failed, one done', () => svc.view(id)!.counts.failed === 1 && svc.view(id)!.counts.done === 1)
    } finally {
      await svc.stop()
      db.close()
    }
    // The output of the good file: its name without the control characters.
    expect(filesUnder(join(inbox, 'clipdesk-out'))).toEqual(['ok]0;title.cut-out.png'])

    const r = runCli(['watch', 'list', '--data-dir', data])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(NOT_TEXT)
    // The file's number is the order the two files were seen in, which is not fixed.
    const failed = r.stdout
      .split('\n')
      .filter((l) => l.includes('failed #'))
      .map((l) => l.replace(/^ {2}failed #\d+ /, '  failed #N '))
    expect(failed).toEqual(['  failed #N evil\\x1b[2J\\x1b[H\\nfailed #1 all fine\\u202egnp.png: broken \\x1b[31mred\\x1b[0m\\nforged'])
    // --json keeps the names as they are (JSON escapes them itself).
    const json = runCli(['watch', 'list', '--json', '--data-dir', data])
    expect(JSON.parse(json.stdout)[0].failed[0].rel_path).toBe(EVIL)
  })

  it('batch output names and clipdesk-report.txt carry no newline, ESC or U+202E', async () => {
    const engine = new Engine({ dataDir: join(root, 'batch-data') })
    engine.start()
    const service = new BatchService(engine)
    service.start()
    const destination = join(root, 'batch-out')
    try {
      const batch = await service.create({
        name: `shoot ${ESC}[2J\nnight\u202e`,
        request: { mode: 'clipping', output_format: 'png', params: 'alpha=keep' },
        destination
      })
      await service.add(batch.id, [
        { bytes: await tinyPng(), rel_path: `day${ESC}[1m/${EVIL}` },
        { bytes: Buffer.from('not an image at all'), rel_path: `bad${ESC}[31m\nname\u202e.png` }
      ])
      const done = await until(service, batch.id, settled)
      expect(done.counts).toMatchObject({ done: 1, failed: 1 })
      await waitFor('the report', () => readdirSync(destination).includes('clipdesk-report.txt'))
      await service.stop()
    } finally {
      await engine.stop()
    }
    const written = filesUnder(destination).filter((f) => !/^\.?clipdesk-report\./.test(f))
    expect(written).toEqual(['day[1m/evil[2J[Hfailed #1 all finegnp.png'])
    for (const f of filesUnder(destination)) expect(f).not.toMatch(NOT_TEXT)
    const report = readFileSync(join(destination, 'clipdesk-report.txt'), 'utf8')
    expect(report).not.toMatch(NOT_TEXT)
    expect(report.split('\n')[0]).toContain('clipdesk batch "shoot \\x1b[2J\\nnight\\u202e"')
    const failedLines = report.split('\n').filter((l) => l.includes('bad\\x1b[31m'))
    expect(failedLines).toHaveLength(1)
    expect(failedLines[0]).toMatch(/^ {2}bad\\x1b\[31m\\nname\\u202e\.png: .+/)
  })

  it('clipdesk process prints and reports a failing file named with ESC sequences escaped, and names its outputs without them', async () => {
    const input = join(root, 'process-in')
    mkdirSync(input)
    writeFileSync(join(input, `bad${ESC}[2J\nname.png`), 'not an image at all')
    writeFileSync(join(input, `ok\u202e${ESC}[7m.png`), await tinyPng())
    const out = join(root, 'process-out')
    const r = runCli(['process', input, '--out', out, '--params', 'alpha=keep', '--data-dir', join(root, 'process-data')])
    expect(r.code).toBe(1) // one failed
    expect(r.stdout + r.stderr).not.toMatch(NOT_TEXT)
    expect(r.stderr).toContain(`bad\\x1b[2J\\nname.png: `)
    expect(readdirSync(out).filter((f) => f.endsWith('.png'))).toEqual(['ok[7m.png'])
    const report = readFileSync(join(out, 'clipdesk-report.txt'), 'utf8')
    expect(report).not.toMatch(NOT_TEXT)
    expect(report).toContain('bad\\x1b[2J\\nname.png: ')
  })
})
