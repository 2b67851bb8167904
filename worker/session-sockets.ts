import { type ConnectionKind, ENDS_OLDEST, MAX_CONNECTIONS_PER_PERSON } from "../protocol/connections";
import { ErrorCode } from "../protocol/errors";
import { AppError } from "./errors";

type Close = (code: number, reason: string) => void;

/** One open connection: its way to close it, and what uncounts it (once). */
interface Connection {
  close: Close;
  release: () => void;
  /** Its person and kind (`kind user`), where it is counted. */
  key: string;
}

/**
 * The open terminal sockets, language-server sockets and event streams of a
 * workspace by the session (and the user) that opened them, so that ending a
 * session (signing out, here or everywhere) closes them too, and so does
 * taking a member out of the workspace or changing their role: a channel
 * opened before is not left running on a session or a role that ended.
 *
 * It also counts them by person and kind, so that one person cannot hold
 * more than MAX_CONNECTIONS_PER_PERSON of a kind (issue 42): the door admits
 * a connection before its handler runs, and that admission counts until the
 * handler has answered, by when the connection it opened (if any) is added.
 */
export class SessionSockets {
  /** By session: whose they are, and their connections. */
  private readonly open = new Map<string, { user: string; connections: Set<Connection> }>();
  /** Open connections by person and kind, oldest first. */
  private readonly byKey = new Map<string, Set<Connection>>();
  /** Open connections plus admitted ones whose handler has not answered yet, by person and kind. */
  private readonly held = new Map<string, number>();

  /**
   * Admits one more connection of `kind` for `user`. At the cap, a kind that
   * ends the oldest (an event stream) ends that person's oldest one of the
   * kind; any other is refused 429 TOO_MANY_CONNECTIONS. The returned
   * function ends the admission: call it once the handler answered.
   */
  admit(user: string, kind: ConnectionKind): () => void {
    const cap = MAX_CONNECTIONS_PER_PERSON[kind];
    if (this.count(user, kind) >= cap) {
      const oldest = ENDS_OLDEST.has(kind) ? this.byKey.get(keyOf(user, kind))?.values().next().value : undefined;
      if (!oldest) {
        throw new AppError(
          ErrorCode.TOO_MANY_CONNECTIONS,
          `You already have ${cap} ${kind} connections open to this workspace, the most one person may: close some (other tabs or windows) and try again.`,
        );
      }
      this.end(oldest, 1008, `More than ${cap} ${kind} connections: the oldest ends.`);
    }
    return this.hold(user, kind);
  }

  /** Records a socket's way to close it, whose it is and its kind; returns what removes it again. */
  add(sessionId: string, close: Close, user: string, kind: ConnectionKind): () => void {
    const entry = this.open.get(sessionId) ?? { user, connections: new Set() };
    const key = keyOf(user, kind);
    const connection: Connection = { close, release: this.hold(user, kind), key };
    entry.connections.add(connection);
    this.open.set(sessionId, entry);
    const mine = this.byKey.get(key) ?? new Set();
    mine.add(connection);
    this.byKey.set(key, mine);
    return () => {
      this.forget(connection);
      entry.connections.delete(connection);
      if (entry.connections.size === 0 && this.open.get(sessionId) === entry) this.open.delete(sessionId);
    };
  }

  /** How many connections of `kind` `user` holds (open or being opened). */
  count(user: string, kind: ConnectionKind): number {
    return this.held.get(keyOf(user, kind)) ?? 0;
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
    chosen: (entry: [string, { user: string; connections: Set<Connection> }]) => boolean,
    reason: string,
  ): number {
    let closed = 0;
    for (const entry of [...this.open]) {
      if (!chosen(entry)) continue;
      const [sessionId, { connections }] = entry;
      this.open.delete(sessionId);
      // 1008: policy violation, the session (or the role) this socket was opened with ended.
      for (const connection of [...connections]) {
        this.end(connection, 1008, reason);
        closed++;
      }
    }
    return closed;
  }

  /** Closes a connection and uncounts it (its own close may come later, or never: a stream's). */
  private end(connection: Connection, code: number, reason: string): void {
    this.forget(connection);
    for (const entry of this.open.values()) entry.connections.delete(connection);
    connection.close(code, reason);
  }

  private forget(connection: Connection): void {
    connection.release();
    const mine = this.byKey.get(connection.key);
    mine?.delete(connection);
    if (mine?.size === 0) this.byKey.delete(connection.key);
  }

  /** Counts one connection; the returned function uncounts it, once. */
  private hold(user: string, kind: ConnectionKind): () => void {
    const key = keyOf(user, kind);
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }
}

function keyOf(user: string, kind: ConnectionKind): string {
  return `${kind} ${user}`;
}

/**
 * A streamed answer (the file-change stream) that ends when its session
 * does, or its user's membership: its body is read through a stream of its
 * own, which is closed the moment `sockets` closes it (what fed it is then
 * cancelled, however long that takes), and forgotten when the client goes away.
 */
export function endsWithSession(
  response: Response,
  sockets: SessionSockets,
  sessionId: string,
  user: string,
  kind: ConnectionKind,
): Response {
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
        kind,
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
