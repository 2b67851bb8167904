/** Paths relative to /workspace, as the files API takes them ("." is /workspace itself). */

/** Joins a folder path ("." is the root) and a name. */
export function joinPath(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

export function parentOf(path: string): string {
  const index = path.lastIndexOf("/");
  return index === -1 ? "." : path.slice(0, index);
}

export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
