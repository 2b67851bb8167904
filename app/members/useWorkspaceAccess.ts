import { useEffect, useState } from "react";
import type { WorkspaceAccess } from "../../protocol/members";
import { MembersApi } from "./members-api";

/** The caller's role in a workspace (owner until known otherwise: the server refuses what a role may not do anyway). */
export function useWorkspaceAccess(workspaceId: string): WorkspaceAccess | undefined {
  const [access, setAccess] = useState<WorkspaceAccess>();
  useEffect(() => {
    let current = true;
    new MembersApi(workspaceId)
      .access()
      .then((answer) => current && setAccess(answer))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [workspaceId]);
  return access;
}
