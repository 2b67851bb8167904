import type { CollabSaved } from "../../protocol/collab";
import { apiJson, workspacePath } from "../api/http";
import { SharedFile } from "./shared-file";

/** The browser side of a workspace's co-editing (worker/collab/collab-routes.ts). */
export class CollabApi {
  constructor(readonly workspaceId: string) {}

  /** Joins a file's shared document (await its `synced`; `destroy` it when the file closes). */
  open(path: string): SharedFile {
    return new SharedFile(this.workspaceId, path, () => this.save(path));
  }

  /** Writes the shared text to disk; answers the file as written and the text it holds (a SharedFile saves on
   * its socket, and so only when that is not connected). */
  save(path: string): Promise<CollabSaved> {
    return apiJson(workspacePath(this.workspaceId, `/collab/save?${new URLSearchParams({ path })}`), {
      method: "POST",
    });
  }
}
