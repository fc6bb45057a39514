/**
 * A watched file keeps how many times its result was touched up in the app and when
 * (docs/touch-up.md "Touch-up"); a new version of the file starts again at 0.
 */
export default `
  ALTER TABLE watch_files ADD COLUMN touch_ups INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE watch_files ADD COLUMN touched_up_at INTEGER;
`
