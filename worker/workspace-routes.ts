/**
 * Every route of a workspace, as its features declare them (worker/door/).
 * Adding a route is one declaration in its feature's table, its `doc`
 * included; the Workspace's dispatcher serves whatever is listed here, and
 * docs/api.md lists it (`npm run docs:api`).
 */

import { AGENT_CHAT_ROUTES } from "./agents/agent-chat-routes";
import { AGENT_ROUTES } from "./agents/agent-routes";
import { BACKUP_ROUTES } from "./backups/backup-routes";
import { COLLAB_ROUTES } from "./collab/collab-routes";
import type { RouteGroup } from "./door/route";
import { FILE_ROUTES } from "./files/file-routes";
import { GIT_ROUTES } from "./git/git-routes";
import { LIFECYCLE_ROUTES } from "./lifecycle/lifecycle-routes";
import { LSP_ROUTES } from "./lsp/lsp-routes";
import { MEMBER_ROUTES } from "./members/member-routes";
import { NETWORK_ROUTES } from "./network/network-routes";
import { PREVIEW_ROUTES } from "./previews/preview-routes";
import { SEARCH_ROUTES } from "./search/search-routes";
import { SSH_ROUTES } from "./ssh/ssh-routes";
import { TERMINAL_ROUTES } from "./terminals/terminal-routes";
import type { WorkspaceParts, WorkspaceRoute } from "./workspace-parts";

/** The routes by feature, in the order the API reference (docs/api.md) lists them. */
export const WORKSPACE_ROUTE_GROUPS: readonly RouteGroup<WorkspaceParts>[] = [
  { feature: "The workspace", guide: "lifecycle.md", routes: LIFECYCLE_ROUTES },
  { feature: "Files", guide: "files.md", routes: FILE_ROUTES },
  { feature: "Co-editing and presence", guide: "files.md#co-editing-shared-documents", routes: COLLAB_ROUTES },
  { feature: "Search", guide: "search.md", routes: SEARCH_ROUTES },
  { feature: "Source control", guide: "source-control.md", routes: GIT_ROUTES },
  { feature: "Terminals", guide: "terminal.md", routes: TERMINAL_ROUTES },
  { feature: "SSH", guide: "connect.md", routes: SSH_ROUTES },
  { feature: "Language servers", guide: "language-servers.md", routes: LSP_ROUTES },
  { feature: "Previews", guide: "previews.md", routes: PREVIEW_ROUTES },
  { feature: "Network", guide: "network.md", routes: NETWORK_ROUTES },
  { feature: "Backups", guide: "lifecycle.md#your-files-apart-from-the-system-backups-in-r2", routes: BACKUP_ROUTES },
  { feature: "Members and invites", guide: "security.md#members-roles-and-invite-links", routes: MEMBER_ROUTES },
  { feature: "Agent tokens and activity", guide: "agents.md", routes: AGENT_ROUTES },
  { feature: "The agent panel", guide: "agent-panel.md", routes: AGENT_CHAT_ROUTES },
];

/** Every route, one flat list for the dispatcher. */
export const WORKSPACE_ROUTES: readonly WorkspaceRoute[] = WORKSPACE_ROUTE_GROUPS.flatMap((group) => group.routes);
