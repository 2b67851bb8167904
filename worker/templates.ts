import type { WorkspaceTemplate } from "../protocol/workspaces";
import { run } from "./container-exec";
import { describe } from "./http";

/** Where the image keeps each template (Dockerfile). */
const TEMPLATE_DIRS: Record<Exclude<WorkspaceTemplate, "empty">, string> = {
  "vite-react": "/opt/templates/vite-react",
};

/**
 * Copies a workspace's template into /workspace, only when /workspace is
 * empty: the first start of a new workspace. Never touches a user's files.
 */
export async function seedTemplate(container: Container, template: WorkspaceTemplate): Promise<void> {
  if (template === "empty") return;
  const script = 'if [ -z "$(ls -A /workspace 2>/dev/null)" ]; then cp -a "$1"/. /workspace/; fi';
  try {
    await run(container, ["sh", "-c", script, "sh", TEMPLATE_DIRS[template]]);
  } catch (error) {
    throw new Error(`copying the ${template} template failed: ${describe(error)}`);
  }
}
