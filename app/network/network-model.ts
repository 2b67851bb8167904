import type { EgressLogEntry, NetworkMode, NetworkPolicy, NetworkSettings, SecretInput } from "../../protocol/network";
import { errorMessage } from "../api/http";
import type { NetworkApi } from "../api/network";
import { PolledStore } from "../hooks/polled-store";

/** How many requests the panel shows (the server keeps as many). */
const KEEP = 300;
const POLL_MS = 1_500;

export interface NetworkView {
  settings?: NetworkSettings;
  /** Newest first. */
  entries: EgressLogEntry[];
  /** Whether the running container's requests pass through the Worker (and so are logged). */
  intercepting: boolean;
  /** Why the last read failed, until the next one works. */
  error?: string;
}

/**
 * The Network panel's state: the workspace's policy and secrets, and its
 * request log, polled while the panel is open. Components read it through
 * useSyncExternalStore; changes go through the API and come back as the
 * server's answer.
 */
export class NetworkModel extends PolledStore<NetworkView> {
  private after = 0;

  constructor(private readonly api: NetworkApi) {
    super({ entries: [], intercepting: false }, POLL_MS);
  }

  /** Reads the settings once (for the header's label); returns nothing to clean up. */
  refresh(): undefined {
    void this.api.get().then(
      (settings) => this.set({ settings, error: undefined }),
      (error: unknown) => this.set({ error: errorMessage(error) }),
    );
    return undefined;
  }

  /** The log, and the settings, which a restart or another tab may change. */
  protected async read(): Promise<Partial<NetworkView>> {
    const [settings, log] = await Promise.all([this.api.get(), this.api.log(this.after)]);
    const byId = new Map(this.view.entries.map((e) => [e.id, e]));
    for (const entry of log.entries) byId.set(entry.id, entry);
    const entries = [...byId.values()].sort((a, b) => b.id - a.id).slice(0, KEEP);
    this.after = Math.max(this.after, ...log.entries.map((e) => e.id));
    return { settings, entries, intercepting: log.intercepting };
  }

  private policy(): NetworkPolicy {
    const settings = this.view.settings;
    if (!settings) throw new Error("The network settings have not loaded yet.");
    return { mode: settings.mode, allow: settings.allow };
  }

  private async save(next: NetworkPolicy, restart = false): Promise<void> {
    this.set({ settings: await this.api.update(next, { restart }) });
  }

  /** Fails with RESTART_REQUIRED (an ApiRequestError) when the change needs a new container and `restart` is false. */
  setMode(mode: NetworkMode, restart = false): Promise<void> {
    return this.save({ ...this.policy(), mode }, restart);
  }

  allow(host: string): Promise<void> {
    const policy = this.policy();
    if (policy.allow.includes(host)) return Promise.resolve();
    return this.save({ ...policy, allow: [...policy.allow, host] });
  }

  disallow(host: string): Promise<void> {
    const policy = this.policy();
    return this.save({ ...policy, allow: policy.allow.filter((h) => h !== host) });
  }

  async putSecret(name: string, secret: SecretInput): Promise<void> {
    await this.api.putSecret(name, secret);
    this.set({ settings: await this.api.get() });
  }

  async deleteSecret(name: string): Promise<void> {
    await this.api.deleteSecret(name);
    this.set({ settings: await this.api.get() });
  }
}
