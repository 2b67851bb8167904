import type { WorkspaceTemplate } from "../protocol/workspaces";
import { describe } from "./errors";
import { WORKSPACE_ROOT } from "./sandbox/environment";
import type { Sandbox } from "./sandbox/sandbox";

/** The template the image's /workspace holds (Dockerfile): a new workspace of it needs nothing done. */
const IMAGE_TEMPLATE: WorkspaceTemplate = "vite-react";

/**
 * Makes a new workspace's /workspace what its template asks for, on its first
 * start from the image (never over a snapshot, so never over a user's files):
 * the image's template stays, "empty" clears it.
 */
export async function seedTemplate(sandbox: Pick<Sandbox, "stdout">, template: WorkspaceTemplate): Promise<void> {
  if (template === IMAGE_TEMPLATE) return;
  try {
    // During the start: never wake (the start in progress would wait for itself).
    await sandbox.stdout(["find", WORKSPACE_ROOT, "-mindepth", "1", "-delete"], { wake: false });
  } catch (error) {
    throw new Error(`preparing the ${template} template failed: ${describe(error)}`);
  }
}
