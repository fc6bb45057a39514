/**
 * The second look a done job's photo got (docs/pipeline.md "Second look"), as JSON
 * `{"views": n, "reason": "..."}`: written with the job's results. NULL for none, for jobs done
 * before this column, and while not done.
 */
export default `
  ALTER TABLE jobs ADD COLUMN second_look TEXT;
`
