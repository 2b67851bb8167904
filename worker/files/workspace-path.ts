/**
 * Browser-supplied paths: relative to /workspace and confined to it. This is
 * the only place that turns a path from a request into a container path.
 * Symlinks are checked in the container, in the same process as the operation
 * (`Files` with `confineTo`), because only there is the answer current.
 */
import { WORKSPACE_ROOT } from "../sandbox/environment";

export { WORKSPACE_ROOT };
/** Linux PATH_MAX and NAME_MAX, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Normalizes a workspace-relative path: "." and "" segments go (so "a//b/./c/"
 * is "a/b/c"); the workspace itself is ".". Refuses empty, absolute, "..",
 * NUL-containing and over-long paths.
 */
export function checkWorkspacePath(input: string | null | undefined): PathCheck {
  if (input === null || input === undefined || input === "") return { ok: false, reason: "The path is empty." };
  if (input.includes("\0")) return { ok: false, reason: "The path contains a NUL character." };
  if (input.startsWith("/")) {
    return { ok: false, reason: "The path is absolute: give it relative to /workspace, such as src/index.ts." };
  }
  const bytes = new TextEncoder();
  if (bytes.encode(input).byteLength > MAX_PATH_BYTES) {
    return { ok: false, reason: `The path is longer than ${MAX_PATH_BYTES} bytes.` };
  }
  const segments: string[] = [];
  for (const segment of input.split("/")) {
    if (segment === "..") return { ok: false, reason: 'The path contains "..": it must stay inside /workspace.' };
    if (segment === "" || segment === ".") continue;
    if (bytes.encode(segment).byteLength > MAX_NAME_BYTES) {
      return { ok: false, reason: `A name in the path is longer than ${MAX_NAME_BYTES} bytes.` };
    }
    segments.push(segment);
  }
  return { ok: true, path: segments.length === 0 ? "." : segments.join("/") };
}

/** The absolute container path of a checked workspace-relative path. */
export function containerPath(relative: string): string {
  return relative === "." ? WORKSPACE_ROOT : `${WORKSPACE_ROOT}/${relative}`;
}

/** The last segment of a checked path ("workspace" for "."). */
export function baseName(relative: string): string {
  return relative === "." ? "workspace" : (relative.split("/").pop() as string);
}

/** The parent of a checked path ("." for a top-level name and for "."). */
export function parentPath(relative: string): string {
  const index = relative.lastIndexOf("/");
  return index === -1 ? "." : relative.slice(0, index);
}
