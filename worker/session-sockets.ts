/**
 * The open terminal sockets, language-server sockets and event streams of a
 * workspace by the session (and the user) that opened them, so that ending a
 * session (signing out, here or everywhere) closes them too, and so does
 * taking a member out of the workspace or changing their role: a channel
 * opened before is not left running on a session or a role that ended.
 */
export class SessionSockets {
  private readonly open = new Map<string, { user: string; closes: Set<(code: number, reason: string) => void> }>();

  /** Records a socket's way to close it, and whose it is; returns what removes it again. */
  add(sessionId: string, close: (code: number, reason: string) => void, user = ""): () => void {
    const entry = this.open.get(sessionId) ?? { user, closes: new Set() };
    entry.closes.add(close);
    this.open.set(sessionId, entry);
    return () => {
      entry.closes.delete(close);
      if (entry.closes.size === 0 && this.open.get(sessionId) === entry) this.open.delete(sessionId);
    };
  }

  /** Closes the sockets of these sessions (all sessions when `sessionIds` is null); returns how many. */
  close(sessionIds: readonly string[] | null, reason: string): number {
    return this.closeWhere(([sessionId]) => !sessionIds || sessionIds.includes(sessionId), reason);
  }

  /** Closes every socket of this user, whatever session opened it; returns how many. */
  closeUser(user: string, reason: string): number {
    return this.closeWhere(([, entry]) => entry.user === user, reason);
  }

  private closeWhere(
    chosen: (entry: [string, { user: string; closes: Set<(code: number, reason: string) => void> }]) => boolean,
    reason: string,
  ): number {
    let closed = 0;
    for (const entry of [...this.open]) {
      if (!chosen(entry)) continue;
      const [sessionId, { closes }] = entry;
      this.open.delete(sessionId);
      // 1008: policy violation, the session (or the role) this socket was opened with ended.
      for (const close of [...closes]) {
        close(1008, reason);
        closed++;
      }
    }
    return closed;
  }
}

/**
 * A streamed answer (the file-change stream) that ends when its session
 * does, or its user's membership: its body is read through a stream of its
 * own, which is closed the moment `sockets` closes it (what fed it is then
 * cancelled, however long that takes), and forgotten when the client goes away.
 */
export function endsWithSession(response: Response, sockets: SessionSockets, sessionId: string, user = ""): Response {
  if (!response.body) return response;
  const source = response.body.getReader();
  let ended = false;
  let forget = () => {};
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      forget = sockets.add(
        sessionId,
        () => {
          if (ended) return;
          ended = true;
          controller.close();
          source.cancel().catch(() => {});
        },
        user,
      );
    },
    async pull(controller) {
      const next = await source.read().catch(() => ({ done: true as const, value: undefined }));
      if (ended) return;
      if (next.done) {
        ended = true;
        forget();
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel(reason) {
      ended = true;
      forget();
      return source.cancel(reason);
    },
  });
  return new Response(readable, response);
}
