import { describe, expect, it } from 'vitest'
import { NAME_TAIL, splitForMiddle } from './middle'

describe('splitForMiddle: the end of a name always shows, the middle gives way', () => {
  it('keeps the extension and the last words of a file name', () => {
    expect(splitForMiddle('animal-portrait-on-grass-large.jpg')).toEqual({ head: 'animal-portrait-on-grass', tail: '-large.jpg' })
    const { head, tail } = splitForMiddle('animal-portrait-on-grass-large.jpg', 14)
    expect(head + tail).toBe('animal-portrait-on-grass-large.jpg')
    expect(tail).toBe('-grass-large.jpg') // 14 characters, widened to the word's start
  })

  it('starts the tail at a word when one begins a few characters back', () => {
    expect(splitForMiddle('clutter-on-the-workbench-the-model-cannot-cut-out.png').tail).toBe('-cut-out.png')
    // No separator near: the tail stays as counted.
    expect(splitForMiddle('IMG20260528WITHOUTANYSEPARATORS.png').tail).toBe('RATORS.png')
  })

  it('widens the tail to hold a long extension whole', () => {
    expect(splitForMiddle('scan.tiff', 3)).toEqual({ head: 'scan', tail: '.tiff' })
    expect(splitForMiddle('photo-0001.jpeg', 4).tail).toBe('.jpeg')
    // A dot far from the end is not an extension; a leading dot neither.
    expect(splitForMiddle('v1.2-final-version-of-the-shot', 6).tail).toBe('-the-shot')
    expect(splitForMiddle('.hidden', 3)).toEqual({ head: '.hid', tail: 'den' })
  })

  it('a short name is all tail: nothing of it is ever cut', () => {
    expect(splitForMiddle('ball.png')).toEqual({ head: '', tail: 'ball.png' })
    expect(splitForMiddle('')).toEqual({ head: '', tail: '' })
    expect(splitForMiddle('a'.repeat(NAME_TAIL)).head).toBe('')
  })

  it('a folder keeps its last folder whole when it is not much longer than the tail', () => {
    expect(splitForMiddle('shoots/2026/animals-and-portraits/day-one-studio', 10, true)).toEqual({
      head: 'shoots/2026/animals-and-portraits',
      tail: '/day-one-studio'
    })
    // A very long last folder: only its end.
    const long = `in/${'x'.repeat(40)}-end`
    expect(splitForMiddle(long, 10, true).tail).toBe(`${'x'.repeat(6)}-end`)
    // A folder name's dot is no extension.
    expect(splitForMiddle('in/2026.05', 4, true).tail).toBe('/2026.05')
  })

  it('never splits a character written as two code units', () => {
    const { head, tail } = splitForMiddle('beach🌊🌊🌊🌊🌊🌊🌊🌊.png', 6)
    expect(tail).toBe('🌊🌊.png')
    expect(head).toBe('beach🌊🌊🌊🌊🌊🌊')
  })
})
