/** Jobs, API keys with their credit ledger, results, and per-installation secrets. */
export default `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    prefix     TEXT NOT NULL,
    hash       TEXT NOT NULL UNIQUE,
    name       TEXT,
    credits    INTEGER,            -- NULL: unlimited
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    CHECK (credits IS NULL OR credits >= 0)
  );

  CREATE TABLE credit_ledger (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id  TEXT NOT NULL REFERENCES api_keys(id),
    job_id  TEXT,
    delta   INTEGER NOT NULL,
    reason  TEXT NOT NULL,         -- grant | charge | refund
    at      INTEGER NOT NULL
  );
  CREATE INDEX credit_ledger_key ON credit_ledger(key_id);

  CREATE TABLE jobs (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    key_id         TEXT REFERENCES api_keys(id),
    mode           TEXT NOT NULL,
    output_format  TEXT NOT NULL,
    delivery_mode  TEXT NOT NULL,
    params         TEXT,           -- JSON: string or object as given
    source_kind    TEXT NOT NULL,  -- file | url
    source         TEXT NOT NULL,  -- original file name or the URL
    input_path     TEXT,           -- stored upload (file) or downloaded copy (url)
    status         TEXT NOT NULL,
    progress       INTEGER NOT NULL DEFAULT 0,
    attempts       INTEGER NOT NULL DEFAULT 0,
    error_reason   TEXT,
    error_message  TEXT,
    warnings       TEXT,           -- JSON map variation -> string[]
    ignored        TEXT,           -- JSON string[]
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    finished_at    INTEGER
  );
  CREATE INDEX jobs_status ON jobs(status, seq);

  CREATE TABLE results (
    job_id    TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    variation TEXT NOT NULL,
    ext       TEXT NOT NULL,
    path      TEXT NOT NULL,
    bytes     INTEGER NOT NULL,
    PRIMARY KEY (job_id, variation)
  );
  `
