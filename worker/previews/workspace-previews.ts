/**
 * The Workspace Durable Object's side of previews: access grants, the proxy
 * to dev servers in the container (with bridged WebSockets), port detection,
 * and the Run button's dev server.
 */
import { type DevServerState, type ListeningPort, previewUrl } from "../../protocol/previews";
import { withoutInternalHeaders } from "../door/entrances";
import { PROCESS_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox } from "../sandbox/sandbox";
import { type Bridge, bridgeWebSocket } from "./bridge";
import { DEV_SERVER_COMMAND, DEV_SERVER_DIR, parseState, SERVE, STATE, STOP } from "./dev-server";
import { type Grant, type GrantStorage, GrantStore } from "./grants";
import { previewAsleep, previewNotFound } from "./pages";
import { LISTENING_PORTS_SCRIPT, parseListeningPorts } from "./ports";
import { proxyToDevServer } from "./preview-proxy";

export const SWEEP_TASK = "preview-grants";
/** Where the container's login shells read the hosts Vite should accept (sandbox/profile.sh). */
const PREVIEW_HOSTS_FILE = "/etc/cloud-ide/preview-hosts";

export interface PreviewDeps {
  storage: GrantStorage;
  sandbox: Sandbox;
  /** Asks the Durable Object's alarm to call sweep() at `at`, or cancels it. */
  scheduleSweep: (at: number | undefined) => Promise<void>;
  previewDomain: string;
  /** Whether a container is there (the lifecycle's word): a preview never starts one. */
  hasContainer: () => boolean;
  /** Counts open bridged sockets as use of the workspace (so an idle stop waits for them). */
  connections?: { begin(): void; end(): void };
}

export class WorkspacePreviews {
  readonly grants: GrantStore;
  /** Open bridged sockets by the token that opened them, so revoking closes them at once. */
  private readonly bridges = new Map<string, Set<Bridge>>();

  constructor(private readonly deps: PreviewDeps) {
    this.grants = new GrantStore(deps.storage);
  }

  /** A request of the preview entrance (worker/door/entrances.ts): check the grant, then forward once. */
  async fetch(request: Request, { port, token }: { port: number; token: string }): Promise<Response> {
    const grant = await this.grants.find(token, port);
    if (!grant) return previewNotFound();
    // A preview never wakes a workspace: its dev server did not survive the
    // sleep anyway, and a link's holder must not be able to start (and pay
    // for) the owner's container. The owner wakes it in the IDE.
    if (!this.deps.hasContainer()) return previewAsleep();
    const url = new URL(request.url);
    // getTcpPort().fetch() takes http: only; the path and the preview Host stay as they are.
    url.protocol = "http:";
    const forward = new Request(url, withoutInternalHeaders(request));
    const response = await proxyToDevServer(forward, port, (r) => this.deps.sandbox.tcpPort(port).fetch(r));
    if (!response.webSocket) return response;
    // Only the owner's own preview counts as use: a share link's visitors
    // (requests or sockets) do not keep the workspace awake.
    const counts = grant.kind === "owner";
    if (counts) this.deps.connections?.begin();
    const { response: bridged, bridge } = bridgeWebSocket(response, (done) => {
      this.bridges.get(token)?.delete(done);
      if (counts) this.deps.connections?.end();
    });
    const open = this.bridges.get(token) ?? new Set<Bridge>();
    this.bridges.set(token, open.add(bridge));
    return bridged;
  }

  /** The owner grant `id` renewed, or a new one (see GrantStore.renewOwner). */
  async openOwner(port: number, id?: string): Promise<Grant> {
    const grant = await this.grants.renewOwner(port, id);
    await this.sweep();
    return grant;
  }

  /**
   * What listens, each port with a fresh owner grant (5 minutes, never a
   * share link), for an agent: on the IDE's scheme (`origin`).
   */
  async ownerLinks(workspaceId: string, origin: URL): Promise<{ port: number; url: string; expiresAt: string }[]> {
    const ports = await this.listeningPorts();
    return Promise.all(
      ports.map(async ({ port }) => {
        const grant = await this.openOwner(port);
        return {
          port,
          url: previewUrl({ port, workspaceId, token: grant.token }, this.deps.previewDomain, origin.protocol),
          expiresAt: new Date(grant.expiresAt).toISOString(),
        };
      }),
    );
  }

  async createShare(port: number, ttlSeconds: number): Promise<Grant> {
    const grant = await this.grants.createShare(port, ttlSeconds * 1000);
    await this.sweep();
    return grant;
  }

  async revoke(port: number, id: string): Promise<boolean> {
    const grant = await this.grants.revoke(port, id);
    if (!grant) return false;
    this.closeBridges(grant.token, "This preview link was revoked.");
    await this.sweep();
    return true;
  }

  /** Every grant ends, its sockets closed: the owner signed out everywhere. */
  async revokeAll(): Promise<number> {
    const grants = await this.grants.revokeAll();
    for (const grant of grants) this.closeBridges(grant.token, "The workspace's owner signed out everywhere.");
    await this.sweep();
    return grants.length;
  }

  /** The alarm task: forget expired grants and close what they opened. */
  async sweep(): Promise<void> {
    const { expired, next } = await this.grants.sweep();
    for (const grant of expired) this.closeBridges(grant.token, "This preview link has expired.");
    await this.deps.scheduleSweep(next);
  }

  /** What listens. `wake: false` (the pane's poll) neither starts the container nor waits out a save. */
  async listeningPorts({ wake = true } = {}): Promise<ListeningPort[]> {
    const output = await this.deps.sandbox.run(["sh", "-c", LISTENING_PORTS_SCRIPT], poll(wake));
    return parseListeningPorts(output.stdout);
  }

  async devServer({ wake = true } = {}): Promise<DevServerState> {
    const output = await this.deps.sandbox.run(["sh", "-c", STATE, "sh", DEV_SERVER_DIR], poll(wake));
    return parseState(output.stdout);
  }

  /** Starts `npm run dev` in /workspace unless it already runs; its output goes to a log the pane shows. */
  async runDevServer(): Promise<DevServerState> {
    await this.deps.sandbox.wake();
    // Not awaited: the shell stays until the server exits.
    void this.deps.sandbox
      .exec(["sh", "-c", SERVE, "sh", DEV_SERVER_DIR, "sh", "-c", DEV_SERVER_COMMAND], {
        cwd: WORKSPACE_ROOT,
        env: { ...PROCESS_ENV, ...this.viteEnv() },
        stdout: "ignore",
        stderr: "ignore",
        // A delete or stop that races the start ends it; the state below says so.
      })
      .catch((error) => console.warn(`preview dev server: ${error instanceof Error ? error.message : error}`));
    // SERVE writes the pid file first thing; wait for it so the state reads as running.
    for (let i = 0; i < 20; i++) {
      const state = await this.devServer();
      if (state.state !== "stopped") return state;
      await scheduler.wait(100);
    }
    return this.devServer();
  }

  async stopDevServer(): Promise<void> {
    const { exitCode } = await this.deps.sandbox.run(["sh", "-c", STOP, "sh", DEV_SERVER_DIR]);
    if (exitCode !== 0) throw new Error(`Stopping the dev server failed with exit code ${exitCode}.`);
  }

  /**
   * Writes the hosts Vite should accept where login shells read them
   * (sandbox/profile.sh), so `npm run dev` in a terminal serves preview
   * hostnames with no edits. Called during the container's start (so it never wakes it).
   */
  async writePreviewHosts(sandbox: Pick<Sandbox, "stdout"> = this.deps.sandbox): Promise<void> {
    const hosts = this.viteEnv().__VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS;
    const script = 'mkdir -p "$(dirname "$1")" && printf "%s\\n" "$2" >"$1"';
    await sandbox.stdout(["sh", "-c", script, "sh", PREVIEW_HOSTS_FILE, hosts], { wake: false });
  }

  /** `.{preview domain without port}`: Vite matches that host and every subdomain. */
  private viteEnv(): { __VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS: string } {
    const hostname = this.deps.previewDomain.replace(/:\d+$/, "").toLowerCase();
    return { __VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS: `.${hostname}` };
  }

  /** The workspace was deleted: its stored grants are gone, so drop the cached ones and their sockets. */
  forget(): void {
    this.grants.forget();
    for (const token of [...this.bridges.keys()]) this.closeBridges(token, "This workspace was deleted.");
  }

  private closeBridges(token: string, reason: string): void {
    const open = this.bridges.get(token);
    if (!open) return;
    this.bridges.delete(token);
    // 1008: policy violation, the access this socket was opened with is gone.
    for (const bridge of open) bridge.close(1008, reason);
  }
}

/** A poll that must not wake the workspace also fails at once rather than wait out a save. */
function poll(wake: boolean) {
  return wake ? {} : { wake: false, waitMs: 0 };
}
