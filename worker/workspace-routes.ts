/**
 * Every route of a workspace, as its features declare them (worker/door/).
 * Adding a route is one declaration in its feature's table; the Workspace's
 * dispatcher serves whatever is listed here.
 */

import { AGENT_CHAT_ROUTES } from "./agents/agent-chat-routes";
import { AGENT_ROUTES } from "./agents/agent-routes";
import { BACKUP_ROUTES } from "./backups/backup-routes";
import { COLLAB_ROUTES } from "./collab/collab-routes";
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
import type { WorkspaceRoute } from "./workspace-parts";

export const WORKSPACE_ROUTES: readonly WorkspaceRoute[] = [
  ...LIFECYCLE_ROUTES,
  ...FILE_ROUTES,
  ...COLLAB_ROUTES,
  ...SEARCH_ROUTES,
  ...GIT_ROUTES,
  ...TERMINAL_ROUTES,
  ...SSH_ROUTES,
  ...LSP_ROUTES,
  ...PREVIEW_ROUTES,
  ...NETWORK_ROUTES,
  ...BACKUP_ROUTES,
  ...MEMBER_ROUTES,
  ...AGENT_ROUTES,
  ...AGENT_CHAT_ROUTES,
];
