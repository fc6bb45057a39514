/**
 * User presets (the built-in ones are code constants), and the parameter set each job was
 * accepted with, resolved once at upload so that later preset edits cannot change a queued job.
 */
export default `
  CREATE TABLE presets (
    name        TEXT PRIMARY KEY,
    params      TEXT NOT NULL,     -- JSON: the preset's keys as typed values (ParamValues)
    source      TEXT NOT NULL,     -- the set as the user gave it (string, or JSON of an object)
    description TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  );

  CREATE TABLE job_params (
    job_id   TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    resolved TEXT NOT NULL         -- JSON: the job's full JobParams
  );
  `
