import { useCallback, useEffect, useRef, useState } from "react";
import type { PreviewAccess, PreviewsOverview } from "../../protocol/previews";
import { errorMessage } from "../api/http";
import type { PreviewsApi } from "../api/previews";

const POLL_MS = 2_000;
/** The owner's grant lasts 5 minutes past its last renewal; renew every minute while the pane is open. */
const RENEW_MS = 60_000;

/** Listening ports and the Run button's dev server, polled while the pane is mounted. */
export function usePreviewOverview(previews: PreviewsApi) {
  const [overview, setOverview] = useState<PreviewsOverview>();
  const [error, setError] = useState<string>();
  const refresh = useCallback(async () => {
    try {
      setOverview(await previews.overview());
      setError(undefined);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [previews]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      await refresh();
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [refresh]);

  return { overview, error, refresh };
}

/** The owner's preview URL for a port, renewed while the pane shows it. */
export function useOwnerAccess(previews: PreviewsApi, port: number | undefined) {
  const [access, setAccess] = useState<PreviewAccess>();
  const [error, setError] = useState<string>();
  const current = useRef<PreviewAccess>(undefined);

  useEffect(() => {
    if (port === undefined) return;
    let stopped = false;
    const open = async () => {
      try {
        // Renew this pane's own grant; a revoked or expired one comes back as a new URL.
        const held = current.current?.port === port ? current.current.id : undefined;
        const next = await previews.open(port, held);
        if (stopped) return;
        // Same URL on renewal: keep the object so the frame does not reload.
        if (current.current?.url !== next.url) {
          current.current = next;
          setAccess(next);
        }
        setError(undefined);
      } catch (e) {
        if (!stopped) setError(errorMessage(e));
      }
    };
    void open();
    const timer = setInterval(open, RENEW_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [previews, port]);

  return { access: access?.port === port ? access : undefined, error };
}
