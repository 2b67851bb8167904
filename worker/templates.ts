import type { WorkspaceTemplate } from "../protocol/workspaces";

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
  const process = await container.exec(["sh", "-c", script, "sh", TEMPLATE_DIRS[template]], { cwd: "/" });
  const output = await process.output();
  if (output.exitCode !== 0) {
    throw new Error(`copying the ${template} template failed: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
}
