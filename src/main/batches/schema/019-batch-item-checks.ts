/**
 * A batch item keeps its store checks (docs/store-ready.md: "Ready for Amazon", or "Not ready"
 * with the reasons) as JSON, like its uncertainty: jobs are swept after the retention time, the
 * batch's badges and filter stay. NULL for a file made with no store preset, and before done.
 */
export default `
  ALTER TABLE batch_items ADD COLUMN checks TEXT;
`
