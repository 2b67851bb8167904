import type { GitBranchState, GitChangeCode, GitFileChange, GitStatus } from "../../protocol/git";

/**
 * Parses `git status --porcelain=v2 --branch -z` (git-status(1), "Porcelain
 * Format Version 2"): NUL-terminated records, paths unquoted, a rename's
 * original path in the record after it. Pure, so it is unit-tested.
 */
export function parseStatus(output: string, limit: number): Extract<GitStatus, { repository: true }> {
  const branch: GitBranchState = { head: null, oid: null };
  const staged: GitFileChange[] = [];
  const changed: GitFileChange[] = [];
  const untracked: GitFileChange[] = [];
  const conflicted: GitFileChange[] = [];
  let total = 0;
  let listed = 0;
  const add = (list: GitFileChange[], change: GitFileChange) => {
    if (listed >= limit) return;
    listed++;
    list.push(change);
  };
  const records = output.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as string;
    if (record === "") continue;
    const kind = record[0];
    if (kind === "#") {
      header(record, branch);
      continue;
    }
    if (kind === "?") {
      total++;
      add(untracked, { path: record.slice(2), code: "?" });
      continue;
    }
    if (kind === "1" || kind === "2") {
      const fields = splitFields(record, kind === "1" ? 8 : 9);
      if (!fields) continue;
      const xy = fields.fields[1] ?? "..";
      const path = fields.rest;
      // A rename's or copy's original path is the next record.
      const from = kind === "2" ? records[++i] : undefined;
      total++;
      const x = xy[0] ?? ".";
      const y = xy[1] ?? ".";
      if (x !== ".") add(staged, withFrom({ path, code: code(x) }, x, from));
      if (y !== ".") add(changed, withFrom({ path, code: code(y) }, y, from));
      continue;
    }
    if (kind === "u") {
      const fields = splitFields(record, 10);
      if (!fields) continue;
      total++;
      add(conflicted, { path: fields.rest, code: "U" });
    }
    // "!" (ignored files) is not asked for.
  }
  return { repository: true, branch, staged, changed, untracked, conflicted, truncated: listed < total, total };
}

function header(record: string, branch: GitBranchState): void {
  const [, key, ...rest] = record.split(" ");
  const value = rest.join(" ");
  switch (key) {
    case "branch.oid":
      branch.oid = value === "(initial)" ? null : value;
      break;
    case "branch.head":
      branch.head = value === "(detached)" ? null : value;
      break;
    case "branch.upstream":
      branch.upstream = value;
      break;
    case "branch.ab": {
      const match = /^\+(\d+) -(\d+)$/.exec(value);
      if (match) {
        branch.ahead = Number(match[1]);
        branch.behind = Number(match[2]);
      }
      break;
    }
  }
}

/** The first `count` space-separated fields, and the rest of the record (a path, which may hold spaces). */
function splitFields(record: string, count: number): { fields: string[]; rest: string } | undefined {
  const fields: string[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    const space = record.indexOf(" ", at);
    if (space === -1) return undefined;
    fields.push(record.slice(at, space));
    at = space + 1;
  }
  return { fields, rest: record.slice(at) };
}

const CODES = new Set<string>(["M", "A", "D", "R", "C", "T", "U"]);

function code(letter: string): GitChangeCode {
  return (CODES.has(letter) ? letter : "M") as GitChangeCode;
}

function withFrom(change: GitFileChange, letter: string, from: string | undefined): GitFileChange {
  return (letter === "R" || letter === "C") && from ? { ...change, from } : change;
}
