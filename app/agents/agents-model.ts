import type { AgentActivityEntry, AgentScope, AgentTokenInfo, CreatedAgentToken } from "../../protocol/agents";
import type { AgentsApi } from "../api/agents";
import { errorMessage } from "../api/http";

/** How many calls the list shows (the server keeps more). */
const KEEP = 200;
const POLL_MS = 1_500;

export interface AgentsView {
  tokens?: AgentTokenInfo[];
  mcpUrl?: string;
  /** Newest first. */
  activity: AgentActivityEntry[];
  /** The token just made, with its secret: shown once, until dismissed. */
  created?: CreatedAgentToken;
  /** Why the last read failed, until the next one works. */
  error?: string;
}

/**
 * The Agents panel's state: the workspace's agent tokens and the log of
 * agents' calls, polled while the panel is open. Components read it through
 * useSyncExternalStore.
 */
export class AgentsModel {
  private view: AgentsView = { activity: [] };
  private readonly listeners = new Set<() => void>();
  private after = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watchers = 0;

  constructor(private readonly api: AgentsApi) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): AgentsView => this.view;

  private set(change: Partial<AgentsView>): void {
    this.view = { ...this.view, ...change };
    for (const listener of this.listeners) listener();
  }

  /** Polls the tokens and the activity until the last watcher stops. */
  watch(): () => void {
    if (this.watchers++ === 0) void this.poll();
    return () => {
      if (--this.watchers === 0) clearTimeout(this.timer);
    };
  }

  private async poll(): Promise<void> {
    clearTimeout(this.timer);
    try {
      const [list, log] = await Promise.all([this.api.list(), this.api.activity(this.after)]);
      const activity = [...log.entries.reverse(), ...this.view.activity].slice(0, KEEP);
      this.after = Math.max(this.after, ...log.entries.map((e) => e.id));
      this.set({ tokens: list.tokens, mcpUrl: list.mcpUrl, activity, error: undefined });
    } catch (error) {
      this.set({ error: errorMessage(error) });
    }
    if (this.watchers > 0) this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  async create(name: string, scope: AgentScope, ttlSeconds: number): Promise<void> {
    const created = await this.api.create(name, scope, ttlSeconds);
    this.set({ created, tokens: (await this.api.list()).tokens });
  }

  /** Forgets the secret on screen (it cannot be shown again). */
  dismissCreated(): void {
    this.set({ created: undefined });
  }

  async revoke(tokenId: string): Promise<void> {
    await this.api.revoke(tokenId);
    const tokens = (this.view.tokens ?? []).filter((t) => t.id !== tokenId);
    this.set({ tokens, ...(this.view.created?.id === tokenId ? { created: undefined } : {}) });
  }
}
