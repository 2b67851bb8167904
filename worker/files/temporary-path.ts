import { baseName, parentPath } from "./workspace-path";

/** `.NAME.KIND-TOKEN` beside the target: same filesystem, so the final rename is atomic. */
export function temporaryPath(path: string, kind: "save" | "upload", token = randomToken()): string {
  const parent = parentPath(path);
  const name = `.${baseName(path)}.${kind}-${token}`;
  return parent === "." ? name : `${parent}/${name}`;
}

function randomToken(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 16);
}
