/**
 * A done job's store checks (docs/store-ready.md): the file a store preset made, held against
 * that store's rules when the job ended, for the status API's `checks` and the features' badges.
 */
export default `
  CREATE TABLE job_checks (
    job_id TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    checks TEXT NOT NULL          -- JSON: StoreCheck[] (shared/store-rules.ts)
  );
`
