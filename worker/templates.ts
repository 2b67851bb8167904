import type { WorkspaceTemplate } from "../protocol/workspaces";
import { run } from "./container-exec";
import { describe } from "./errors";

/** The template the image's /workspace holds (Dockerfile): a new workspace of it needs nothing done. */
const IMAGE_TEMPLATE: WorkspaceTemplate = "vite-react";

/**
 * Makes a new workspace's /workspace what its template asks for, on its first
 * start from the image (never over a snapshot, so never over a user's files):
 * the image's template stays, "empty" clears it.
 */
export async function seedTemplate(container: Container, template: WorkspaceTemplate): Promise<void> {
  if (template === IMAGE_TEMPLATE) return;
  try {
    await run(container, ["find", "/workspace", "-mindepth", "1", "-delete"]);
  } catch (error) {
    throw new Error(`preparing the ${template} template failed: ${describe(error)}`);
  }
}
