import type { WorkspaceTemplate } from "../../protocol/workspaces";
import { describe } from "../errors";
import { type RepositorySource, startClone } from "../git/clone";
import { ownerIdentity } from "../git/identity";
import type { SourceControl } from "../git/source-control";
import { trustInterceptionCa } from "../network/ca-trust";
import type { WorkspacePreviews } from "../previews/workspace-previews";
import { ensureHostnameResolves } from "../sandbox/hostname";
import type { ContainerSandbox } from "../sandbox/sandbox";
import { seedTemplate } from "../templates";
import type { StartPlan } from "./lifecycle";
import { runSetupRecipe } from "./setup-recipe";

/**
 * What a new container gets besides its files, in two steps the lifecycle
 * calls (worker/lifecycle/lifecycle.ts: `afterLaunch`, `afterStart`).
 */
export interface ContainerSetupDeps {
  /** The workspace's name in logs. */
  tag: string;
  storage: Pick<DurableObjectStorage, "get" | "put">;
  sandbox: ContainerSandbox;
  previews: Pick<WorkspacePreviews, "writePreviewHosts">;
  scm: Pick<SourceControl, "ensureIdentity">;
  /** Whether the container's requests are intercepted (it must trust the interception CA). */
  intercepting(): boolean;
  owner(): string | undefined;
}

/**
 * As soon as a new container answers, beside the restore of a backup's
 * files: the resident agent, the interception CA trusted, preview hostnames
 * for dev servers, the container's own hostname resolvable. None of them touches /workspace or /root.
 */
export async function afterLaunch(deps: ContainerSetupDeps): Promise<void> {
  // The resident agent (started at launch, or again here after a failed attempt); these steps
  // run through it rather than an exec each, side by side: none needs another.
  deps.sandbox.startAgent();
  const quick = deps.sandbox.quick;
  await Promise.all([
    // A container whose clients cannot check the CA still has its files and terminals: log, go on.
    trustInterceptionCa(quick, deps.intercepting()).catch((error) => console.error(`${deps.tag}: ${describe(error)}`)),
    deps.previews.writePreviewHosts(quick),
    ensureHostnameResolves(quick).catch((error) => console.error(`${deps.tag}: the hostname step: ${describe(error)}`)),
  ]);
}

/**
 * Once the container has its files: on the very first start the template,
 * git's author (the owner) and the clone of a repository; the setup recipe
 * after a move to a new image.
 */
export async function afterStart(deps: ContainerSetupDeps, from: StartPlan["from"]): Promise<void> {
  const { storage, sandbox } = deps;
  const quick = sandbox.quick;
  const template = await storage.get<WorkspaceTemplate>("template");
  // Only over the image's /workspace, and at most once: never over a user's files.
  if (template && from === "template" && !(await storage.get<boolean>("seeded"))) {
    await storage.put("seeded", true);
    await seedTemplate(quick, template);
    const owner = deps.owner();
    if (owner) {
      const { name, email } = ownerIdentity(owner);
      await deps.scm.ensureIdentity(name, email);
    }
    const repository = await storage.get<RepositorySource>("repository");
    if (repository) await startClone(sandbox, repository);
    else await runSetupRecipe(quick);
  }
  // A move to the current image: what was installed outside the files is gone; the recipe puts it back.
  if (from === "backup") await runSetupRecipe(quick);
}
