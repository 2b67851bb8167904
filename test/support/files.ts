import { createHash } from "node:crypto";
import { dockerExec, runContainers } from "./containers";
import { ownerApi } from "./session";

/** `/api/workspaces/{id}/files` + suffix, with `path` (and more) in the query. */
export function filesUrl(id: string, suffix: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `/api/workspaces/${id}/files${suffix}${search ? `?${search}` : ""}`;
}

/** Writes a file through the API (creating parents). */
export async function putFile(id: string, path: string, content: string | Uint8Array<ArrayBuffer>): Promise<Response> {
  return ownerApi(filesUrl(id, "/content", { path, parents: "1" }), { method: "PUT", body: content });
}

/**
 * The Docker container behind workspace `id`: the one where a marker file
 * written through the API shows up. Lets tests look from outside the IDE.
 */
export async function workspaceContainer(id: string): Promise<string> {
  const marker = `.marker-${Math.random().toString(36).slice(2)}`;
  const response = await putFile(id, marker, id);
  if (!response.ok) throw new Error(`writing a marker failed: ${response.status} ${await response.text()}`);
  try {
    for (const name of runContainers()) {
      try {
        if (dockerExec(name, ["cat", `/workspace/${marker}`]) === id) return name;
      } catch {
        // not this one
      }
    }
    throw new Error(`no container of this run holds workspace ${id}`);
  } finally {
    await ownerApi(filesUrl(id, "", { path: marker }), { method: "DELETE" });
  }
}

/** Runs a shell command in the workspace's container from outside (like typing it in a terminal). */
export function shell(container: string, command: string): string {
  return dockerExec(container, ["sh", "-c", command]);
}

export function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A file read through the API: its status and, when found, the SHA-256 and size of its bytes. */
export async function readHash(id: string, path: string): Promise<{ status: number; hash?: string; size?: number }> {
  const response = await ownerApi(filesUrl(id, "/content", { path }));
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status };
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: 200, hash: sha256(bytes), size: bytes.byteLength };
}
