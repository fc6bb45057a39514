/**
 * Columns of `api_keys` that were first added by feature migrations (`005-batches`,
 * `008-studio`) when the engine's store held every table; the engine owns them now.
 * - `admin`: an owner key (may use the app in a browser and manage keys). The key
 *   `clipdesk serve` made on an empty data folder before this column existed is the owner's.
 * - `kind`: `client`, or `worker` (may only take studio work and return results).
 */
export const keysAdmin = `
  ALTER TABLE api_keys ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
  UPDATE api_keys SET admin = 1 WHERE name = 'first key';
`

export const keysKind = `
  ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'client';
`
