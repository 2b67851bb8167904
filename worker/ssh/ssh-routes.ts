import { none } from "../door/schema";
import { AppError, describe } from "../errors";
import { errorResponse } from "../http";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";
import { SSH_PORT } from "./ssh-server";
import { openTunnel } from "./ssh-tunnel";

/**
 * SSH into the workspace: a WebSocket whose binary frames are the TCP stream
 * to the workspace's sshd (protocol/ssh-tunnel.ts).
 *
 * An editor's (a viewer gets no shell); a session's, or a personal access
 * token's (`Authorization: Bearer`, worker/index.ts). Opening it wakes a
 * sleeping workspace (it is a deliberate use); its traffic counts as use.
 * Revoking the token (or the session, or the member's role) closes it.
 */
export const SSH_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/ssh",
    socket: true,
    connection: "ssh",
    role: "editor",
    wake: "wake",
    doc: "The ssh tunnel: binary frames are the TCP stream to the workspace's sshd (protocol/ssh-tunnel.ts). A session's, or a personal access token's (`Authorization: Bearer`); revoking the token, the session or the member's role closes it. Its traffic counts as use.",
    input: { query: none },
    handle: async ({ caller, workspace }) => {
      const { lifecycle, sandbox, ssh, sockets } = workspace;
      let connection: Socket;
      try {
        await lifecycle.ensureRunning();
        await ssh.ensure();
        connection = sandbox.connectTcp(SSH_PORT);
        await connection.opened;
      } catch (error) {
        if (error instanceof AppError) return errorResponse(error);
        throw new Error(`the ssh tunnel could not reach sshd: ${describe(error)}`);
      }
      let forget = () => {};
      return openTunnel(connection, {
        begin: (close) => {
          forget = sockets.add(caller.session, close, caller.id, "ssh");
        },
        // Traffic, not an open tunnel, is use: an editor left connected lets an idle workspace sleep.
        traffic: () => lifecycle.activity.touch(),
        end: () => forget(),
      });
    },
  }),
];
