/**
 * The queue's turns between keys (`queue/turns.ts`): the oldest queued job of each key is read
 * from this index without a pass over the jobs table.
 */
export default `
  CREATE INDEX IF NOT EXISTS jobs_queued_key ON jobs(status, key_id, seq);
`
