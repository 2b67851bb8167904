/**
 * The open terminal sockets, language-server sockets and event streams of a
 * workspace by the session that opened them, so that ending a session
 * (signing out, here or everywhere) closes them too: a channel opened before
 * is not left running on a session that ended.
 */
export class SessionSockets {
  private readonly open = new Map<string, Set<(code: number, reason: string) => void>>();

  /** Records a socket's way to close it; returns what removes it again. */
  add(sessionId: string, close: (code: number, reason: string) => void): () => void {
    const set = this.open.get(sessionId) ?? new Set();
    this.open.set(sessionId, set.add(close));
    return () => {
      set.delete(close);
      if (set.size === 0) this.open.delete(sessionId);
    };
  }

  /** Closes the sockets of these sessions (all sessions when `sessionIds` is null); returns how many. */
  close(sessionIds: readonly string[] | null, reason: string): number {
    let closed = 0;
    for (const [sessionId, set] of [...this.open]) {
      if (sessionIds && !sessionIds.includes(sessionId)) continue;
      // 1008: policy violation, the session this socket was opened with ended.
      for (const close of [...set]) {
        close(1008, reason);
        closed++;
      }
      this.open.delete(sessionId);
    }
    return closed;
  }
}

/**
 * A streamed answer (the file-change stream) that ends when its session
 * does: its body passes through a stream of its own, which is cut when
 * `sockets` closes the session, and forgotten when the client goes away.
 */
export function endsWithSession(response: Response, sockets: SessionSockets, sessionId: string): Response {
  if (!response.body) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const cut = new AbortController();
  const forget = sockets.add(sessionId, (_code, reason) => cut.abort(new Error(reason)));
  response.body
    .pipeTo(writable, { signal: cut.signal, preventAbort: true })
    .catch(() => {
      // Cut: the stream ends cleanly (the page's reconnect then meets the ended session).
      if (cut.signal.aborted) writable.close().catch(() => {});
    })
    .finally(forget);
  return new Response(readable, response);
}
