/**
 * Touch-ups of a done file (docs/touch-up.md "Touch-up"): how many times its outputs were
 * replaced by a touched-up version, and when last. 0 and NULL for files never touched up.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN touch_ups INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE batch_items ADD COLUMN touched_up_at INTEGER;
`
