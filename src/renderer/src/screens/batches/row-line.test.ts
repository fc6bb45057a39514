/**
 * A row's second line, rendered to markup (react-dom/server): while a retry runs the last try's
 * problem stays in view, marked as such; the new result replaces it. The browser end-to-end test
 * cannot always catch the "Retrying" moment (a damaged file fails again at once), so it is here.
 */
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import type { BatchItemView } from '../../../../shared/batches'
import { batchItem } from '../../testing/batch-item'
import { RowLine } from './ItemList'

const DAMAGED = 'This JPEG is damaged: it ends early (the file was cut short)'

/** A failed item whose last try's problem is a damaged file. */
const item = (over: Partial<BatchItemView>): BatchItemView =>
  batchItem('i1', 0, {
    name: 'cut.jpg',
    rel_path: 'shoot/cut.jpg',
    status: 'failed',
    state: 'failed',
    job_id: 'j1',
    error: DAMAGED,
    error_detail: 'premature end of JPEG',
    ...over
  })

const line = (i: BatchItemView): string => renderToStaticMarkup(createElement(RowLine, { item: i, folder: 'shoot' }))

describe('a row of the batch', () => {
  it('says the problem, then "Retrying; last try: …" while the retry runs, then the retry\'s own result', () => {
    const failed = line(item({}))
    expect(failed).toContain(`>${DAMAGED}</span>`)
    expect(failed).toContain('field-error')
    expect(failed).toContain('aria-label="Details of the problem with cut.jpg"')
    expect(failed).not.toContain('shoot') // the problem takes the whole line

    const retrying = line(item({ status: 'segmenting', state: 'pending', progress: 40 }))
    expect(retrying).toContain(`>Retrying; last try: ${DAMAGED}</span>`)
    expect(retrying).toContain('class="text warn"')

    const done = line(item({ status: 'done', state: 'done', error: null, error_detail: null, outputs: ['/out/cut.png'] }))
    expect(done).not.toContain('damaged')
    expect(done).toContain('1 file written')
    expect(done).toContain('shoot')
  })

  it('a warning is said in its own words first, the others counted after it, all of them in the tooltip', () => {
    const enlarged = 'With shadow: enlarged 3.1×: the subject (310×280 px) is small for a 2000×2000 canvas, so it looks soft'
    const warned = line(
      item({
        status: 'done',
        state: 'done',
        error: null,
        error_detail: null,
        outputs: ['/out/cut.png'],
        warnings: [enlarged, 'metadata: dropped']
      })
    )
    expect(warned).toContain(`>⚠ ${enlarged}</span>`)
    expect(warned).toContain('>+1 more</span>')
    expect(warned).toContain(`title="${enlarged}\nmetadata: dropped"`)
    expect(warned).not.toContain('2 warnings') // the count never comes before the words
    expect(warned).toContain('shoot')
    const one = line(
      item({ status: 'done', state: 'done', error: null, error_detail: null, outputs: ['/out/cut.png'], warnings: [enlarged] })
    )
    expect(one).not.toContain('more')
  })
})
