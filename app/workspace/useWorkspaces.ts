import { useCallback, useEffect, useRef, useState } from "react";
import type { WorkspaceSummary, WorkspaceTemplate } from "../../protocol/workspaces";
import { errorMessage } from "../api/http";
import { workspacesApi } from "../api/workspace";

const SPARE_ASK_INTERVAL_MS = 60_000;
/** How long Create waits for the spare's id (its answer does not wait for the container). */
const SPARE_ANSWER_WAIT_MS = 3_000;

const delay = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));

/** The signed-in user's workspaces and the actions on them. */
export function useWorkspaces() {
  const [workspaces, setWorkspaces] = useState<WorkspaceSummary[] | undefined>();
  const [error, setError] = useState<string | undefined>();

  const refresh = useCallback(async () => {
    try {
      setWorkspaces(await workspacesApi.list());
      setError(undefined);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // The spare asked for (its id once answered), and when: a page asks again after a claim, or after a minute.
  const spare = useRef<{ askedAt: number; id: Promise<string | undefined> }>(undefined);
  /** Someone began naming a new workspace: its container starts now, so it opens at once. */
  const prepareSpare = useCallback(() => {
    if (spare.current && Date.now() - spare.current.askedAt < SPARE_ASK_INTERVAL_MS) return;
    const id = workspacesApi.prepareSpare().then(
      (answer) => answer?.id,
      // Only a head start: without it the workspace starts when opened, as always.
      (err) => {
        console.warn(`no spare workspace: ${errorMessage(err)}`);
        return undefined;
      },
    );
    spare.current = { askedAt: Date.now(), id };
  }, []);

  const create = useCallback(
    async (name: string, template: WorkspaceTemplate = "vite-react", repository?: { url: string; branch?: string }) => {
      const asked = spare.current;
      spare.current = undefined;
      // A spare whose answer is late is not waited for: the workspace then starts when opened.
      const spareId = asked && (await Promise.race([asked.id, delay(SPARE_ANSWER_WAIT_MS)]));
      const created = await workspacesApi.create(name, template, repository, spareId);
      await refresh();
      return created;
    },
    [refresh],
  );

  const rename = useCallback(
    async (id: string, name: string) => {
      await workspacesApi.rename(id, name);
      await refresh();
    },
    [refresh],
  );

  const remove = useCallback(
    async (id: string) => {
      await workspacesApi.remove(id);
      await refresh();
    },
    [refresh],
  );

  return { workspaces, error, refresh, prepareSpare, create, rename, remove };
}
