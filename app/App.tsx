import { type ReactNode, useEffect, useMemo, useSyncExternalStore } from "react";
import { workspaceApi } from "./api";
import { CommandsContext, useCommandRegistry } from "./commands/useCommands";
import { useLocation } from "./hooks/useLocation";
import { IdeLayout } from "./ide/IdeLayout";
import { SignIn } from "./session/SignIn";
import { UserMenu } from "./session/UserMenu";
import { useSession } from "./session/useSession";
import { terminalRegistry } from "./terminal/registry";
import { LossNotice } from "./workspace/LossNotice";
import { useWorkspaces } from "./workspace/useWorkspaces";
import { WorkspaceHeader } from "./workspace/WorkspaceHeader";
import { WorkspaceList } from "./workspace/WorkspaceList";
import { WorkspaceStatusModel } from "./workspace/workspace-status-model";

/** `/workspaces/{id}` opens that workspace; `/` lists them. */
function workspaceFromPath(pathname: string): string | undefined {
  return /^\/workspaces\/([^/]+)/.exec(pathname)?.[1];
}

export function App() {
  const { session, signIn, signOut } = useSession();
  const { path, navigate } = useLocation();

  if (session.state === "loading") return <div className="loading" aria-busy="true" />;
  if (session.state === "signed-out") return <SignIn onSignIn={signIn} notice={session.error} />;

  const workspaceId = workspaceFromPath(path);
  const userMenu = <UserMenu userId={session.user.id} onSignOut={signOut} />;
  return workspaceId ? (
    <WorkspacePage key={workspaceId} workspaceId={workspaceId} userMenu={userMenu} navigate={navigate} />
  ) : (
    <ListPage userMenu={userMenu} navigate={navigate} />
  );
}

interface PageProps {
  userMenu: ReactNode;
  navigate: (to: string) => void;
}

function ListPage({ userMenu, navigate }: PageProps) {
  const workspaces = useWorkspaces();
  return (
    <div className="page">
      <header className="workspace-header">
        <span className="brand">Cloud IDE</span>
        <span className="spacer" />
        {userMenu}
      </header>
      <WorkspaceList workspaces={workspaces} onOpen={(id) => navigate(`/workspaces/${id}`)} />
    </div>
  );
}

function WorkspacePage({ workspaceId, userMenu, navigate }: PageProps & { workspaceId: string }) {
  const api = useMemo(() => workspaceApi(workspaceId), [workspaceId]);
  const commands = useCommandRegistry();
  const statusModel = useMemo(() => new WorkspaceStatusModel(api), [api]);
  useEffect(() => statusModel.start(), [statusModel]);
  const status = useSyncExternalStore(statusModel.subscribe, statusModel.getSnapshot);
  const workspaces = useWorkspaces();
  const name = workspaces.workspaces?.find((w) => w.id === workspaceId)?.name;
  const running = status.state === "running";
  // Woken from the header (or another tab): sleeping terminals reconnect now.
  useEffect(() => {
    if (running) terminalRegistry.workspaceWoke();
  }, [running]);
  return (
    <CommandsContext value={commands}>
      <div className="ide">
        <WorkspaceHeader
          api={api}
          name={name}
          status={status}
          onRetry={statusModel.refresh}
          onPoll={statusModel.poll}
          workspaces={workspaces.workspaces ?? []}
          onSwitch={(id) => navigate(id ? `/workspaces/${id}` : "/")}
          userMenu={userMenu}
        />
        <LossNotice workspaceId={workspaceId} restored={status.restored} />
        <IdeLayout api={api} onTerminalConnected={statusModel.poll} />
      </div>
    </CommandsContext>
  );
}
