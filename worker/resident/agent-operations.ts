import type { DirectoryListing } from "../../protocol/files";

/** A file's type as the container names it (file_operations.py's kind()). */
export type AgentFileType = "file" | "directory" | "symlink" | "blockDevice" | "characterDevice" | "fifo" | "socket";

/** A stat as the container answers it (file_operations.py's stat_json), times in ms. */
export interface AgentStat {
  type: AgentFileType;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  atimeMs: number;
  mtimeMs: number;
  ctimeMs: number;
  etag: string;
}

/** "1" or "0": a flag as the Python reads it. */
export type Flag = "0" | "1";

/** A command's end: Python's returncode, minus the signal that ended it. */
export interface CommandEnd {
  exitCode: number;
}

/**
 * The operations answered with one RESULT (sandbox/resident_agent.py's serve()
 * and file_operations.py's run_op(); the per-call helper answers the file
 * ones alike): each one's arguments, as the Python reads them, and its answer.
 * `undefined`: a RESULT without a header (done, nothing to say).
 */
export interface AgentCalls {
  ping: { args: []; result: { pid: number } };
  stat: { args: [path: string]; result: AgentStat };
  lstat: { args: [path: string]; result: AgentStat };
  readdir: { args: [path: string]; result: { entries: { name: string; type: AgentFileType }[] } };
  list: { args: [path: string]; result: DirectoryListing };
  mkdir: { args: [path: string, recursive: Flag]; result: undefined };
  rename: { args: [source: string, destination: string, noReplace: Flag]; result: undefined };
  remove: { args: [path: string, recursive: Flag, force: Flag]; result: undefined };
  /** The request's body is the content. */
  write: { args: [path: string]; result: AgentStat };
  /** The request's body is written at OFFSET ("0" truncates first). */
  "write-at": { args: [path: string, offset: string]; result: AgentStat };
  /** The body into TEMP, then commit. EXPECTED: an etag, "" for no check, "-" for "must not exist". */
  save: { args: [temp: string, destination: string, expected: string]; result: AgentStat };
  commit: { args: [temp: string, destination: string, expected: string]; result: AgentStat };
  /** SETTINGS: JSON {cwd?, env?, stdin?: true (the body)}; the output kept whole. */
  run: { args: [settings: string, ...argv: string[]]; result: { exitCode: number; stdout: string; stderr: string } };
}

/** The operations that stream: HEAD (`head`), then DATA as far as granted, then RESULT (`result`). */
export interface AgentStreams {
  /** With "stat", HEAD is the stat of the file opened. */
  read: { args: [path: string] | [path: string, withStat: "stat"]; head: AgentStat | undefined; result: undefined };
  /** ENV: JSON added to the environment; stderr in the output. */
  command: { args: [env: string, ...argv: string[]]; head: undefined; result: CommandEnd };
  /** A login shell's script, ended after TIMEOUT seconds (KILL_AFTER more for a KILL). */
  shell: {
    args: [env: string, timeoutSeconds: string, killAfterSeconds: string, script: string, ...args: string[]];
    head: undefined;
    result: CommandEnd;
  };
  /** Lines of change events in inotifywait's format, under ROOT except paths matching the regex EXCLUDED. */
  watch: { args: [root: string, excluded: string]; head: undefined; result: undefined };
}

export type AgentCall = keyof AgentCalls;
export type AgentStreamOp = keyof AgentStreams;
