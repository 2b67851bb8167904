import { SharedFile } from "./shared-file";

/** The browser side of a workspace's co-editing (worker/collab/collab-routes.ts). */
export class CollabApi {
  constructor(readonly workspaceId: string) {}

  /** Joins a file's shared document (await its `synced`; `destroy` it when the file closes). */
  open(path: string): SharedFile {
    return new SharedFile(this.workspaceId, path);
  }
}
