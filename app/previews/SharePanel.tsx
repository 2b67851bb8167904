import { useCallback, useEffect, useState } from "react";
import type { ShareLink } from "../../protocol/previews";
import type { PreviewsApi } from "../api/previews";
import { useAction } from "../hooks/useAction";
import { useNow } from "../hooks/useNow";

const TTLS = [
  { label: "5 minutes", seconds: 300 },
  { label: "1 hour", seconds: 3600 },
  { label: "1 day", seconds: 86_400 },
  { label: "7 days", seconds: 604_800 },
] as const;

/**
 * Share links for one port: create with a lifetime, copy, see time left,
 * revoke. Below them, the owner's open preview panes' own URLs, which can be
 * revoked the same way (the pane then gets a new one).
 */
export function SharePanel({ previews, port, onClose }: { previews: PreviewsApi; port: number; onClose: () => void }) {
  const [ttl, setTtl] = useState<number>(3600);
  const [shares, setShares] = useState<ShareLink[]>([]);
  const [panes, setPanes] = useState<ShareLink[]>([]);
  const [copied, setCopied] = useState<string>();
  const action = useAction();
  const now = useNow(1000);

  const load = useCallback(async () => {
    const grants = await previews.grants(port);
    setShares(grants.shares);
    setPanes(grants.owner);
  }, [previews, port]);

  const { run } = action;
  useEffect(() => {
    void run(load);
  }, [run, load]);

  /** A change, then the list again (also after a failure, which stays shown). */
  const act = (change: () => Promise<unknown>) =>
    action.run(async () => {
      try {
        await change();
      } finally {
        await load().catch(() => undefined);
      }
    });

  const copy = async (share: ShareLink) => {
    try {
      await navigator.clipboard.writeText(share.url);
      setCopied(share.id);
    } catch {
      await action.run(() => {
        throw new Error("The browser did not allow copying: select the link and copy it yourself.");
      });
    }
  };

  const live = shares.filter((s) => Date.parse(s.expiresAt) > now);
  return (
    <section className="share-panel" data-testid="share-panel" aria-label={`Share port ${port}`}>
      <p className="share-intro">Anyone with the link can see port {port} until it expires.</p>
      <div className="share-create">
        <select
          aria-label="Link lifetime"
          data-testid="share-ttl"
          value={ttl}
          onChange={(e) => setTtl(Number(e.target.value))}
        >
          {TTLS.map((t) => (
            <option key={t.seconds} value={t.seconds}>
              {t.label}
            </option>
          ))}
        </select>
        <button type="button" data-testid="share-create" onClick={() => act(() => previews.share(port, ttl))}>
          Create link
        </button>
        <span className="spacer" />
        <button type="button" aria-label="Close sharing" title="Close sharing" onClick={onClose}>
          ✕
        </button>
      </div>
      {action.error && (
        <p className="preview-error" role="alert">
          {action.error}
        </p>
      )}
      {live.length === 0 ? (
        <p className="placeholder">No live links for this port.</p>
      ) : (
        <ul className="share-list">
          {live.map((share) => (
            <li key={share.id} data-testid="share-item" data-share-id={share.id}>
              {/* The whole link, wrapped, selectable: a textarea sized to its content. */}
              <textarea
                readOnly
                rows={1}
                aria-label="Share link"
                data-testid="share-url"
                className="share-url"
                value={share.url}
                onFocus={(e) => e.target.select()}
              />
              <div className="share-actions">
                <button type="button" data-testid="share-copy" onClick={() => copy(share)}>
                  {copied === share.id ? "Copied" : "Copy"}
                </button>
                <span className="share-left" data-testid="share-time-left">
                  {timeLeft(Date.parse(share.expiresAt) - now)}
                </span>
                <span className="spacer" />
                <button
                  type="button"
                  data-testid="share-revoke"
                  onClick={() => act(() => previews.revoke(port, share.id))}
                >
                  Revoke
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {panes.length > 0 && (
        <details className="owner-grants" data-testid="owner-grants">
          <summary>Your preview panes' own URLs ({panes.length})</summary>
          <ul className="share-list">
            {panes.map((pane) => (
              <li key={pane.id} data-testid="owner-grant-item" data-share-id={pane.id}>
                <span className="share-left">{timeLeft(Date.parse(pane.expiresAt) - now)}, renewed while open</span>
                <span className="spacer" />
                <button type="button" onClick={() => act(() => previews.revoke(port, pane.id))}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** "6d 23h left", "59m left", "42s left". */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d ${h}h left`;
  if (h > 0) return `${h}h ${m}m left`;
  if (m > 0) return `${m}m left`;
  return `${s}s left`;
}
