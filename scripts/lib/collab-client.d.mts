import type WebSocket from "ws";
import type { Awareness } from "y-protocols/awareness";
import type * as Y from "yjs";

export interface CollabClient {
  doc: Y.Doc;
  text: Y.Text;
  awareness: Awareness;
  ws: WebSocket;
  /** Permission-denied reasons the server sent. */
  denied: string[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `check` holds (checked after each message); rejects after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  announce(state: Record<string, unknown>): void;
  /** Saves on the socket, behind the edits sent before: { saved: CollabSaved } or { error: { code, message } }. */
  save(): Promise<unknown>;
  close(): void;
}

export function connectCollab(url: URL | string, headers: Record<string, string>): Promise<CollabClient>;
