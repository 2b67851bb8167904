import type { AgentActivityEntry, AgentScope, AgentTokenInfo, CreatedAgentToken } from "../../protocol/agents";
import type { AgentsApi } from "../api/agents";
import { PolledStore } from "../hooks/polled-store";

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
export class AgentsModel extends PolledStore<AgentsView> {
  private after = 0;

  constructor(private readonly api: AgentsApi) {
    super({ activity: [] }, POLL_MS);
  }

  protected async read(): Promise<Partial<AgentsView>> {
    const [list, log] = await Promise.all([this.api.list(), this.api.activity(this.after)]);
    const activity = [...log.entries.reverse(), ...this.view.activity].slice(0, KEEP);
    this.after = Math.max(this.after, ...log.entries.map((e) => e.id));
    return { tokens: list.tokens, mcpUrl: list.mcpUrl, activity };
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
