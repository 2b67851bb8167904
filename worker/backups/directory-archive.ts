/**
 * The container's side of a backup: `tar` compressed with `zstd` on stdout,
 * and a restore in two steps, so nothing changes before the archive is known
 * good: extract into a staging folder beside the targets (the Durable Object
 * hashes the stream meanwhile), then, once size and SHA-256 matched, swap the
 * staged folders in. See README "Workspaces that last" for what is kept.
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";

/** The user's own files: the workspace and the user's home (dotfiles, shell history, git config). */
export const BACKUP_DIRS = [WORKSPACE_ROOT, "/root"] as const;

/**
 * Caches that are downloaded again on demand: left out to keep backups small.
 * Anchored at `/` (tar member names have no leading slash).
 */
const EXCLUDED = ["root/.cache", "root/.npm/_cacache"];

/** The scripts' exit when curl failed: the HTTP transfer broke, the archive itself may be fine. */
const TRANSFER_FAILED = 7;

/** On the root filesystem, beside /workspace and /root, so the swap is a rename on one filesystem. */
const STAGE = "/.cloud-ide-restore";

/** The image's list of its own copy of the folders, and the tool that reads it (sandbox/backup-base.py). */
export const BASE_HELPER = "/opt/cloud-ide/backup-base.py";

/**
 * GNU tar in POSIX (pax) format: mtimes to the nanosecond, numeric owners,
 * hard links and symlinks as such, no other filesystems (a mount point
 * becomes an empty folder). Sockets are skipped by tar; exit 1 ("file changed
 * as we read it") is a warning, not a failure: terminals may be writing.
 *
 * Over HTTP, on an image that lists its own copy of the folders, the archive
 * is one tar stream in two runs of zstd frames: first every entry that is not
 * exactly the image's (the folders last, so the run ends in a header and its
 * end-of-archive blocks can be cut off), then the entries that are. Unpacked
 * whole it is the same tar as before. The script then prints
 * {"offset": bytes of the first run, "split": …} when the second run still
 * matches the image, for a wake on that image to skip it.
 */
const BACKUP_SCRIPT = `set -u
url=$1; shift
status=$(mktemp)
dirs=""
for d in "$@"; do [ -d "/$d" ] && dirs="$dirs $d"; done
send() { if [ -n "$url" ]; then curl -sS --fail -o /dev/null -X PUT -T - -H 'Expect:' -H 'Content-Type: application/zstd' "$url"; else cat; fi; }
helper=${BASE_HELPER}
lists=""
if [ -n "$url" ] && [ -f "$helper" ] && [ "$dirs" = " workspace root" ]; then
  lists=$(mktemp -d)
  split=$(python3 "$helper" split "$lists") && [ -s "$lists/base" ] || { rm -rf "$lists"; lists=""; }
fi
if [ -n "$lists" ]; then
  # --ignore-failed-read: an entry listed and gone before tar came to it is not an error (the walk's tar skips it too).
  TAR="tar -C / --format=posix --numeric-owner --no-recursion --null --ignore-failed-read --warning=no-file-changed --warning=no-file-removed --warning=no-file-ignored"
  {
    # dd passes the first run on and counts its bytes (on its stderr).
    $TAR -T "$lists/rest" -cf - | python3 "$helper" strip-end | zstd -q -3 -T0 -c | LC_ALL=C dd bs=1M 2>"$lists/rest.dd"
    echo "\${PIPESTATUS[*]}" > "$lists/rest.status"
    $TAR -T "$lists/base" -cf - | zstd -q -3 -T0 -c
    echo "\${PIPESTATUS[*]}" > "$lists/base.status"
  } | send
  sent=\${PIPESTATUS[1]}
  read -r t1 s1 z1 e1 < "$lists/rest.status"; read -r t2 z2 < "$lists/base.status"
  [ "$sent" -eq 0 ] || { echo "the transfer failed (curl exited with $sent)" >&2; rm -rf "$lists"; exit ${TRANSFER_FAILED}; }
  [ "$s1" -eq 0 ] && [ "$z1" -eq 0 ] && [ "$e1" -eq 0 ] && [ "$z2" -eq 0 ] || { echo "zstd or the split failed ($s1 $z1 $e1 $z2)" >&2; rm -rf "$lists"; exit 2; }
  [ "$t1" -le 1 ] || { rm -rf "$lists"; exit "$t1"; }
  [ "$t2" -le 1 ] || { rm -rf "$lists"; exit "$t2"; }
  # What changed while tar read it is in the archive, but no longer the image's: then no skipping.
  offset=$(sed -n 's/^\\([0-9]*\\) bytes.*/\\1/p' "$lists/rest.dd")
  if [ -n "$offset" ] && python3 "$helper" same "$lists"; then printf '{"offset":%s,"split":%s}\n' "$offset" "$split"; fi
  rm -rf "$lists"
  exit 0
fi
{ tar -C / --format=posix --numeric-owner --one-file-system --anchored ${EXCLUDED.map((p) => `--exclude=${p}`).join(" ")} \\
    --warning=no-file-changed --warning=no-file-removed --warning=no-file-ignored -cf - $dirs; echo $? >"$status"; } \\
  | zstd -q -3 -T0 -c | send
st=("\${PIPESTATUS[@]}")
t=$(cat "$status"); rm -f "$status"
[ "\${st[2]}" -eq 0 ] || { echo "the transfer failed (curl exited with \${st[2]})" >&2; exit ${TRANSFER_FAILED}; }
[ "\${st[1]}" -eq 0 ] || { echo "zstd exited with \${st[1]}" >&2; exit 2; }
[ "$t" -le 1 ] || exit "$t"
exit 0`;

/**
 * What a backup does not keep, dropped from an unpacked tree: FIFOs, devices
 * and sockets, and the setuid and setgid bits; a folder keeps its saved mtime.
 */
const DROP_UNKEPT = (targets: string) => `mark=$(mktemp)
find ${targets} -xdev \\( -type p -o -type s -o -type b -o -type c \\) -print0 | while IFS= read -r -d '' f; do
  parent=$(dirname "$f"); touch -r "$parent" "$mark"; rm -f "$f"; touch -r "$mark" "$parent"
done
rm -f "$mark"
find ${targets} -xdev -perm /6000 -exec chmod ug-s {} +`;

/**
 * The archive on stdin unpacked into `target`, owners and modes as saved:
 * `zstd -d | tar -x`, its statuses the pipeline's second and third. Folders
 * get their saved modes and mtimes at the end: the archive's second run of
 * frames adds files to folders the first run made. What follows tar's
 * end-of-archive (the padding of its last record, which need not line up
 * with the reader's records after the first run) is read and dropped, so
 * zstd never meets a closed pipe.
 */
const UNPACK = (target: string) =>
  `zstd -q -d -c | { tar -C ${target} -x --numeric-owner --same-owner --same-permissions --delay-directory-restore -f -; unpacked=$?; cat >/dev/null; exit $unpacked; }`;

/** stdin (the archive, or the transfer's URL) into the staging folder ({@link UNPACK}). */
const EXTRACT_SCRIPT = `set -u
url=$1
stage=${STAGE}
rm -rf "$stage" "$stage".old-*
mkdir -m 700 "$stage"
receive() { if [ -n "$url" ]; then curl -sS --fail "$url"; else cat; fi; }
receive | ${UNPACK('"$stage"')}
st=("\${PIPESTATUS[@]}")
if [ "\${st[1]}" -ne 0 ] || [ "\${st[2]}" -ne 0 ]; then rm -rf "$stage"; exit 3; fi
if [ "\${st[0]}" -ne 0 ]; then rm -rf "$stage"; echo "the transfer failed (curl exited with \${st[0]})" >&2; exit ${TRANSFER_FAILED}; fi
${DROP_UNKEPT('"$stage"')}
exit 0`;

/**
 * A wake's quick restore, in a new container whose folders are still exactly
 * the image's (checked first; else exit 10): the image's entries the backup no longer has
 * are removed, then the archive's first run (what differs from the image) is
 * unpacked in place; the rest is already there. No staging: a failure
 * leaves only this new container to throw away.
 */
const QUICK_EXTRACT_SCRIPT = `set -u
url=$1; manifest=$2; shift 2
python3 ${BASE_HELPER} fresh "$manifest" "$@" || exit $?
curl -sS --fail "$url" | ${UNPACK("/")}
st=("\${PIPESTATUS[@]}")
if [ "\${st[0]}" -ne 0 ]; then echo "the transfer failed (curl exited with \${st[0]})" >&2; exit ${TRANSFER_FAILED}; fi
if [ "\${st[1]}" -ne 0 ] || [ "\${st[2]}" -ne 0 ]; then exit 3; fi
${DROP_UNKEPT("/workspace /root")}
exit 0`;

/**
 * Swaps each staged folder in with renames. A folder that is part of the
 * image on an overlay filesystem cannot be renamed (EXDEV without
 * redirect_dir, as under local Docker): it is emptied and the staged entries
 * are moved into it instead (still renames, on one filesystem), then given
 * the saved folder's mode, owner and mtime.
 */
const SWAP_SCRIPT = `set -u
stage=${STAGE}
ren() { perl -e 'rename($ARGV[0], $ARGV[1]) or exit 18' "$1" "$2"; }
for d in "$@"; do
  [ -d "$stage/$d" ] || continue
  old="$stage.old-$d"
  # The saved folder's own mtime, before moving changes it.
  touch -r "$stage/$d" "$stage.ref"
  if ren "/$d" "$old" 2>/dev/null; then
    ren "$stage/$d" "/$d" || { ren "$old" "/$d"; echo "could not move the restored /$d in" >&2; exit 4; }
  else
    find "/$d" -mindepth 1 -maxdepth 1 -exec rm -rf {} + || exit 5
    find "$stage/$d" -mindepth 1 -maxdepth 1 -exec mv -t "/$d" {} + || exit 6
    chown --reference="$stage/$d" "/$d"; chmod --reference="$stage/$d" "/$d"
  fi
  touch -r "$stage.ref" "/$d"
done
rm -rf "$stage" "$stage".old-* "$stage.ref"
exit 0`;

/** Every tmux pane starts a new shell in the restored tree, after a line that says why. */
const RESTART_TERMINALS_SCRIPT = `tmux list-panes -a -F '#{pane_id}' 2>/dev/null | while read -r pane; do
  tmux respawn-pane -k -t "$pane" -c ${WORKSPACE_ROOT} "printf '\\\\r\\\\n[%s]\\\\r\\\\n' \\"$1\\"; exec bash -l"
done
exit 0`;

/** Member names for tar: the folders without their leading slash. */
export function members(dirs: readonly string[]): string[] {
  return dirs.map((dir) => dir.replace(/^\/+/, ""));
}

/** The archive's way between the container and this object: over HTTP (a transfer's URL) or the exec's stdio. */
export type ArchiveVia = { url: string } | "exec";

/**
 * What a wake may skip of a backup: its first `offset` bytes hold all that
 * differs from the image whose list has SHA-256 `manifest`, less the image's
 * entries in `deleted` (names without the leading slash; a folder whole).
 */
export interface ImageSplit {
  offset: number;
  manifest: string;
  deleted: string[];
}

/** The split the backup script printed, if any (an image without a list, or a tree that changed under tar, prints none). */
export function parseSplit(stdout: string): ImageSplit | undefined {
  const line = stdout.trim().split("\n").pop();
  if (!line?.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(line) as { offset?: unknown; split?: { manifest?: unknown; deleted?: unknown } };
    const { offset, split } = parsed;
    if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset <= 0) return undefined;
    if (typeof split?.manifest !== "string" || !/^[0-9a-f]{64}$/.test(split.manifest)) return undefined;
    const deleted = split.deleted;
    if (!Array.isArray(deleted) || !deleted.every((name) => typeof name === "string")) return undefined;
    return { offset, manifest: split.manifest, deleted };
  } catch {
    return undefined;
  }
}

/**
 * `tar | zstd` of `dirs`: to the transfer's URL (curl PUTs it), or on stdout
 * (then `stream` is the exec's stdout). `finished()` rejects when tar, zstd
 * or curl failed (the upload is then aborted); `split()`, once it ended, says
 * what a wake on the same image may skip.
 */
export async function startArchive(
  sandbox: Sandbox,
  dirs: readonly string[],
  via: ArchiveVia,
  quick?: Pick<Sandbox, "run">,
): Promise<{
  stdout: ReadableStream<Uint8Array> | null;
  exitCode: Promise<number>;
  failure: () => Promise<string>;
  split: () => Promise<ImageSplit | undefined>;
}> {
  const url = via === "exec" ? "" : via.url;
  if (url && quick) {
    // Over HTTP the script needs no stdio of ours: the resident agent runs it, an exec's round trip fewer.
    const result = quick.run(["bash", "-c", BACKUP_SCRIPT, "backup", url, ...members(dirs)], { wake: false });
    result.catch(() => {});
    return {
      stdout: null,
      exitCode: result.then((done) => done.exitCode),
      failure: async () => {
        const done = await result.catch((error: unknown) => ({ exitCode: -1, stderr: describe(error) }));
        return archiveFailure(url, done.exitCode, done.stderr);
      },
      split: async () => {
        const done = await result.catch(() => undefined);
        return done?.exitCode === 0 ? parseSplit(done.stdout) : undefined;
      },
    };
  }
  const proc = await sandbox.exec(["bash", "-c", BACKUP_SCRIPT, "backup", url, ...members(dirs)], {
    stdout: "pipe",
    stderr: "pipe",
    wake: false,
  });
  if (!proc.stdout) throw new Error("tar has no stdout");
  const stderr = readText(proc);
  // Over HTTP the script's stdout is the split's line, not the archive.
  const printed = url ? new Response(proc.stdout).text() : Promise.resolve("");
  printed.catch(() => {});
  return {
    stdout: via === "exec" ? proc.stdout : null,
    exitCode: proc.exitCode,
    failure: async () => archiveFailure(url, await proc.exitCode, await stderr),
    split: async () => ((await proc.exitCode) === 0 ? parseSplit(await printed.catch(() => "")) : undefined),
  };
}

/** What failed, named by the pipeline that ran (curl too when it PUT the archive); the script's stderr says which part. */
function archiveFailure(url: string, exitCode: number, stderr: string): string {
  return `${url ? "tar | zstd | curl" : "tar | zstd"} exited with ${exitCode}: ${stderr.trim().slice(0, 300)}`;
}

/**
 * Unpacks the archive into the staging folder: from the transfer's URL
 * (curl GETs it) or from `stdin`. Throws NO_SPACE when the disk has no room
 * for a second copy, BACKUP_INTEGRITY when it does not unpack,
 * BACKUP_UNAVAILABLE when the HTTP transfer broke; either way the staging
 * folder is gone and nothing else changed.
 */
export async function extractToStaging(
  sandbox: Sandbox,
  source: { url: string } | { stdin: ReadableStream<Uint8Array> },
  quick?: Pick<Sandbox, "run">,
): Promise<void> {
  const { code, stderr } = await runExtract(sandbox, source, quick);
  if (code !== 0) throw extractFailure(code, stderr);
}

/** An extraction's exit code and stderr as the error to throw. */
function extractFailure(code: number, stderr: string): AppError {
  if (/no space left/i.test(stderr)) {
    return new AppError(
      ErrorCode.NO_SPACE,
      "The disk has no room to unpack the backup beside your files (a restore needs space for both copies). Nothing was changed; free some space and try again.",
    );
  }
  if (code === TRANSFER_FAILED) {
    return new AppError(
      ErrorCode.BACKUP_UNAVAILABLE,
      `The backup could not be carried into the container (${stderr.trim().slice(0, 300)}). Nothing was changed; try again.`,
    );
  }
  return new AppError(
    ErrorCode.BACKUP_INTEGRITY,
    `The backup does not unpack (${stderr.trim().slice(0, 300) || `exit ${code}`}). Nothing was changed.`,
  );
}

/** The extract script's exit code and stderr; over HTTP through the resident agent when there is one (no stdio of ours needed). */
async function runExtract(
  sandbox: Sandbox,
  source: { url: string } | { stdin: ReadableStream<Uint8Array> },
  quick: Pick<Sandbox, "run"> | undefined,
): Promise<{ code: number; stderr: string }> {
  const viaHttp = "url" in source;
  if (viaHttp && quick) {
    const done = await quick.run(["bash", "-c", EXTRACT_SCRIPT, "extract", source.url], { wake: false });
    return { code: done.exitCode, stderr: done.stderr };
  }
  const proc = await sandbox.exec(["bash", "-c", EXTRACT_SCRIPT, "extract", viaHttp ? source.url : ""], {
    ...(viaHttp ? {} : { stdin: source.stdin }),
    stdout: "ignore",
    stderr: "pipe",
    wake: false,
  });
  const [code, stderr] = await Promise.all([proc.exitCode, readText(proc)]);
  return { code, stderr };
}

/** {@link QUICK_EXTRACT_SCRIPT}'s exit when the container's folders are not the image's as its list says: nothing changed. */
const NOT_FRESH = 10;

/**
 * A wake's quick restore ({@link QUICK_EXTRACT_SCRIPT}): when the folders are
 * still exactly the image's (its list has SHA-256 `split.manifest`), the
 * image's entries in `split.deleted` go, then the archive's first run (from
 * the transfer's URL) is unpacked in place. Answers false, with nothing
 * changed and the URL never fetched, when the folders are not the image's.
 * Throws as {@link extractToStaging} does; then the container is half
 * restored, and only a full restore may follow.
 */
export async function extractInPlace(
  quick: Pick<Sandbox, "run">,
  url: string,
  split: { manifest: string; deleted: readonly string[] },
): Promise<boolean> {
  const done = await quick.run(
    ["bash", "-c", QUICK_EXTRACT_SCRIPT, "quick-extract", url, split.manifest, ...split.deleted],
    { wake: false },
  );
  if (done.exitCode === NOT_FRESH) return false;
  if (done.exitCode !== 0) throw extractFailure(done.exitCode, done.stderr);
  return true;
}

/** Removes what an extraction left (after a refused check). */
export async function discardStaging(sandbox: Pick<Sandbox, "run">): Promise<void> {
  await sandbox.run(["rm", "-rf", STAGE], { wake: false });
}

/** Swaps the staged folders in place of `dirs`. */
export async function swapStaged(sandbox: Pick<Sandbox, "run">, dirs: readonly string[]): Promise<void> {
  const result = await sandbox.run(["bash", "-c", SWAP_SCRIPT, "swap", ...members(dirs)], { wake: false });
  if (result.exitCode !== 0) {
    throw new Error(`replacing the files failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 300)}`);
  }
}

/** Tells each terminal what happened and starts its shell again in the restored tree. */
export async function restartTerminals(sandbox: Pick<Sandbox, "run">, message: string): Promise<void> {
  // The message goes through printf's %s, never as a format: no quoting games.
  const safe = message.replace(/["'\\$`]/g, "");
  await sandbox.run(["bash", "-c", RESTART_TERMINALS_SCRIPT, "restart", safe], { env: SHELL_ENV, wake: false });
}

function readText(proc: SandboxProcess): Promise<string> {
  return proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
}
