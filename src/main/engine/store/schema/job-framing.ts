/**
 * How a done job framed its subject (pipeline/compose/placement.ts `Placement`: the part of the input
 * placed, where it landed, the canvas), so that a before/after view can place the original the
 * same way: a cropping preset's result is compared with the same framing of the original, not
 * with the whole photo. Jobs run by a studio worker have none (the view then shows the original whole).
 */
export default `
  CREATE TABLE job_framing (
    job_id  TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    framing TEXT NOT NULL          -- JSON: { canvas: {width, height}, source: Rect, target: Rect }
  );
`
