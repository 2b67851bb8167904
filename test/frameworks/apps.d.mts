import type WebSocket from "ws";
import type { PreviewAccess } from "../../protocol/previews";
import type { Row } from "./rows";

/** How the caller reaches the IDE as the signed-in owner (the tests' helpers, or a bench's session). */
export interface OwnerClient {
  api(path: string, init?: RequestInit): Promise<Response>;
  webSocket(path: string): WebSocket | Promise<WebSocket>;
}

export interface AppTerminal {
  ws: WebSocket;
  type(text: string): void;
  /** What the terminal shows, lines joined by "\n". */
  screen(): Promise<string>;
  close(): void;
}

export interface RunningApp {
  terminal: AppTerminal;
  /** The owner's preview of the row's port. */
  grant: PreviewAccess;
  /** From typing the command to the port listening (generate + install + start). */
  startSeconds: number;
  /** When the port listened (ms since the epoch). */
  listeningAt: number;
}

export const NPM_CACHE_VOLUME: string;
export const START_TIMEOUT_MS: number;
export function npmCacheBind(): string;
export function selectRows(filter: string | undefined): Row[];
export function startWorkspace(
  client: OwnerClient,
  row: Row,
  name: string,
  onCreated?: (id: string) => void,
): Promise<string>;
export function makeApp(client: OwnerClient, id: string, row: Row): Promise<RunningApp>;
export function ownerPreview(client: OwnerClient, id: string, port: number, renew?: string): Promise<PreviewAccess>;
