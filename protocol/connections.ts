/**
 * The long-lived connections a person may hold open in one workspace, by
 * kind: each route that keeps one open (a WebSocket or an event stream)
 * names its kind (worker/door/route.ts), and the door refuses one more past
 * the cap with 429 TOO_MANY_CONNECTIONS (worker/session-sockets.ts). The caps
 * are well above what the IDE's pages open (one presence room and one file
 * event stream per page, a socket per open file, terminal tab and language),
 * so only a runaway client or a flood meets them.
 */
export const MAX_CONNECTIONS_PER_PERSON = {
  /** A terminal tab's socket. */
  terminal: 32,
  /** A page's presence room (who else is here). */
  presence: 16,
  /** An open file's shared document. */
  collab: 128,
  /** A language server's socket (one per language a page uses). */
  lsp: 16,
  /** A page's stream of file changes (server-sent events). */
  "file-events": 16,
  /** The agent panel's event stream. */
  "agent-chat": 16,
  /** An SSH tunnel (an editor such as VS Code opens a few at once). */
  ssh: 16,
} as const;

export type ConnectionKind = keyof typeof MAX_CONNECTIONS_PER_PERSON;

/**
 * Kinds whose next connection past the cap ends that person's oldest instead
 * of being refused: event streams. A page that goes away does not always end
 * its stream (locally the platform never tells the workspace), so refusing
 * would lock a person out after enough reloads; a page whose stream ended
 * reconnects by itself. Their number stays at the cap either way.
 */
export const ENDS_OLDEST: ReadonlySet<ConnectionKind> = new Set<ConnectionKind>(["file-events", "agent-chat"]);
