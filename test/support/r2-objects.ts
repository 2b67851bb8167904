/**
 * What local R2 really holds, read from outside the Worker: a test of
 * something that deletes objects must not take the Workspace's own records as
 * the proof. workerd (miniflare) keeps each R2 bucket of the IDE under test in
 * a SQLite database of its own under the run's state folder, one row per
 * object in `_mf_objects`.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { inject } from "vitest";

/** The keys of every object in the IDE's R2 buckets that end with `suffix`. */
export function r2KeysEndingWith(suffix: string): string[] {
  return eachBucket(inject("stateDir"), (db) =>
    db.prepare("SELECT key FROM _mf_objects WHERE substr(key, -length(?)) = ?").all(suffix, suffix),
  );
}

/**
 * The keys of the multipart uploads neither completed nor aborted (state 0)
 * whose key starts with `prefix`, in the local R2 of the IDE whose state
 * folder is `stateDir` (the tier's own by default).
 */
export function r2UploadsInProgress(prefix: string, stateDir: string = inject("stateDir")): string[] {
  return eachBucket(stateDir, (db) =>
    db
      .prepare("SELECT key FROM _mf_multipart_uploads WHERE state = 0 AND substr(key, 1, length(?)) = ?")
      .all(prefix, prefix),
  );
}

/** The `key` of every row `query` gives, over every R2 bucket's database under `stateDir`. */
function eachBucket(stateDir: string, query: (db: DatabaseSync) => Record<string, unknown>[]): string[] {
  const folder = join(stateDir, "v3/r2/miniflare-R2BucketObject");
  if (!existsSync(folder)) throw new Error(`no local R2 state at ${folder}: has miniflare's layout changed?`);
  const keys: string[] = [];
  let buckets = 0;
  for (const name of readdirSync(folder)) {
    if (!name.endsWith(".sqlite") || name === "metadata.sqlite") continue;
    const db = new DatabaseSync(join(folder, name), { readOnly: true });
    try {
      for (const row of query(db)) keys.push(String(row.key));
      buckets += 1;
    } finally {
      db.close();
    }
  }
  // No bucket at all would make every "gone" check pass: that is a broken reading, not an empty R2.
  if (buckets === 0) throw new Error(`no R2 bucket database in ${folder}: has miniflare's layout changed?`);
  return keys;
}
