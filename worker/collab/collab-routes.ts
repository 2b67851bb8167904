import { z } from "zod";
import type { CollabSaveAnswer, CollabSaved } from "../../protocol/collab";
import { ErrorCode } from "../../protocol/errors";
import { check, none } from "../door/schema";
import { AppError } from "../errors";
import { checkWorkspacePath } from "../files/workspace-path";
import type { WorkspaceParts } from "../workspace-parts";
import { defineRoute, type WorkspaceCall, type WorkspaceRoute } from "../workspace-parts";
import { openCollabSocket } from "./collab-socket";
import { collabUser } from "./collab-user";

/**
 * Co-editing (protocol/collab.ts): a page's WebSocket to a file's shared
 * document or to the presence room, and the save of a shared text.
 *
 * A page saves on its file's socket (protocol/collab.ts COLLAB_MESSAGE_SAVE),
 * an editor's only, as the POST: the same save, answered on the socket.
 *
 * Sockets end with the session that opened them, and with the caller's
 * membership (SessionSockets).
 */
const path = check((value) => {
  const result = checkWorkspacePath(typeof value === "string" ? value : undefined);
  if (!result.ok) throw new AppError(ErrorCode.INVALID_PATH, `path: ${result.reason}`);
  if (result.path === ".") throw new AppError(ErrorCode.INVALID_PATH, "path names /workspace itself, not a file.");
  return result.path;
});

/** The caller as others see them: their name and colour. */
function participant({ caller, workspace }: Pick<WorkspaceCall<unknown, unknown, unknown>, "caller" | "workspace">) {
  const name =
    caller.role === "owner"
      ? workspace.identity().name
      : (workspace.members.list().find((member) => member.id === caller.id)?.name ?? caller.id);
  return collabUser(caller.id, name);
}

function endsWithSession(
  call: { caller: WorkspaceCall<unknown, unknown, unknown>["caller"]; workspace: WorkspaceParts },
  kind: "collab" | "presence",
) {
  let forget = () => {};
  return {
    onOpen: (close: (code: number, reason: string) => void) => {
      forget = call.workspace.sockets.add(call.caller.session, close, call.caller.id, kind);
    },
    forget: () => forget(),
  };
}

/** A save on the socket, as its answer: what the POST answers, or the error it would answer. */
async function saveAnswer(save: () => Promise<CollabSaved>, path: string): Promise<CollabSaveAnswer> {
  try {
    return { saved: await save() };
  } catch (error) {
    if (error instanceof AppError) return { error: { code: error.code, message: error.message } };
    console.error(`collab: saving ${path} on its socket failed:`, error);
    return {
      error: { code: ErrorCode.INTERNAL, message: `Something went wrong on the server saving "${path}". Try again.` },
    };
  }
}

export const COLLAB_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/collab/file",
    socket: true,
    connection: "collab",
    // A viewer reads and shows their cursor; their document updates are refused (shared-document.ts).
    role: "viewer",
    wake: "wake",
    doc: "A file's shared document (protocol/collab.ts): y-protocols sync and awareness; a viewer's document updates are refused. An editor saves on it (COLLAB_MESSAGE_SAVE), answered on the socket as POST /collab/save answers. `wake=0` (a reconnect) leaves a sleeping workspace asleep (409 WORKSPACE_ASLEEP). It closes with the session that opened it and with the caller's membership.",
    input: { query: z.object({ path, wake: z.string().optional() }) },
    handle: async (call) => {
      const { lifecycle, collab } = call.workspace;
      // A reconnect (`wake=0`) of a document nobody holds leaves a sleeping workspace asleep.
      if (call.query.wake === "0" && lifecycle.isAsleep()) {
        throw new AppError(
          ErrorCode.WORKSPACE_ASLEEP,
          "The workspace is asleep; open a file or a terminal to wake it.",
        );
      }
      await lifecycle.ensureRunning();
      const document = await collab.document(call.query.path);
      const session = endsWithSession(call, "collab");
      const canWrite = call.caller.role !== "viewer";
      const { path } = call.query;
      try {
        return openCollabSocket(
          document.shared,
          { canWrite, user: participant(call) },
          {
            onMessage: () => lifecycle.activity.touch(),
            ...(canWrite ? { onSave: () => saveAnswer(() => collab.save(path), path) } : {}),
            onOpen: session.onOpen,
            onClose: () => {
              session.forget();
              document.left();
            },
          },
        );
      } finally {
        document.joined();
      }
    },
  }),
  defineRoute({
    method: "GET",
    path: "/collab/presence",
    socket: true,
    connection: "presence",
    role: "viewer",
    wake: "never",
    doc: "The presence room: awareness only (who is here, what they look at). It closes with the session that opened it and with the caller's membership.",
    input: { query: none },
    handle: async (call) => {
      const session = endsWithSession(call, "presence");
      const room = call.workspace.collab.presence();
      return openCollabSocket(
        room.shared,
        // Awareness only: nobody writes the presence room's document.
        { canWrite: false, user: participant(call) },
        {
          onOpen: session.onOpen,
          onClose: () => {
            session.forget();
            room.left();
          },
        },
      );
    },
  }),
  defineRoute({
    method: "POST",
    path: "/collab/save",
    role: "editor",
    wake: "wake",
    doc: "Saves the shared document of `path` to disk; answers CollabSaved.",
    input: { query: z.object({ path }) },
    handle: async ({ query, workspace }) =>
      Response.json((await workspace.collab.save(query.path)) satisfies CollabSaved),
  }),
];
