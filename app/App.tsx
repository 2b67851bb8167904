import { type ReactNode, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { DevicePage } from "./access/DevicePage";
import { TokensPage } from "./access/TokensPage";
import { workspaceApi } from "./api";
import { FollowBar, PresenceAvatars } from "./collab/PresenceAvatars";
import { PresenceRoom } from "./collab/presence";
import { CommandsContext, useCommandRegistry } from "./commands/useCommands";
import { useLocation } from "./hooks/useLocation";
import { IdeLayout } from "./ide/IdeLayout";
import { JoinPage } from "./members/JoinPage";
import { MembersApi } from "./members/members-api";
import { ShareButton } from "./members/SharePanel";
import { useWorkspaceAccess } from "./members/useWorkspaceAccess";
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

/** `/join/{workspace}#{token}`: an invite link (the token stays in the fragment, never sent in a request line). */
function inviteFromPath(pathname: string): { workspace: string; token: string } | undefined {
  const workspace = /^\/join\/([a-z0-9]+)\/?$/.exec(pathname)?.[1];
  return workspace ? { workspace, token: window.location.hash.slice(1) } : undefined;
}

export function App() {
  const { session, signIn, signOut, refresh } = useSession();
  const { path, navigate } = useLocation();

  if (session.state === "loading") return <div className="loading" aria-busy="true" />;
  const invite = inviteFromPath(path);
  if (invite) {
    const user = session.state === "signed-in" ? session.user : undefined;
    return (
      <JoinPage
        workspace={invite.workspace}
        token={invite.token}
        signedInAs={user && user.via !== "guest" ? user.id : undefined}
        onJoined={(workspace) => {
          void refresh().then(() => navigate(`/workspaces/${workspace}`));
        }}
      />
    );
  }
  if (session.state === "signed-out") return <SignIn onSignIn={signIn} notice={session.error} />;

  const workspaceId = workspaceFromPath(path);
  const guest = session.user.via === "guest";
  const userMenu = <UserMenu userId={session.user.name ?? session.user.id} onSignOut={signOut} guest={guest} />;
  // A command line's way in: tokens and SSH keys, and the approval of `cloud-ide login`.
  if (path === "/tokens") return <TokensPage />;
  if (path === "/device") return <DevicePage />;
  return workspaceId ? (
    <WorkspacePage
      key={workspaceId}
      workspaceId={workspaceId}
      userId={session.user.id}
      userMenu={userMenu}
      navigate={navigate}
    />
  ) : (
    <ListPage userMenu={userMenu} navigate={navigate} guest={guest} />
  );
}

interface PageProps {
  userMenu: ReactNode;
  navigate: (to: string) => void;
}

function ListPage({ userMenu, navigate, guest }: PageProps & { guest: boolean }) {
  const workspaces = useWorkspaces();
  return (
    <div className="page">
      <header className="workspace-header">
        <span className="brand">Cloud IDE</span>
        <span className="spacer" />
        {userMenu}
      </header>
      <WorkspaceList workspaces={workspaces} onOpen={(id) => navigate(`/workspaces/${id}`)} canCreate={!guest} />
    </div>
  );
}

function WorkspacePage({
  workspaceId,
  userId,
  userMenu,
  navigate,
}: PageProps & { workspaceId: string; userId: string }) {
  const api = useMemo(() => workspaceApi(workspaceId), [workspaceId]);
  const commands = useCommandRegistry();
  const statusModel = useMemo(() => new WorkspaceStatusModel(api), [api]);
  useEffect(() => statusModel.start(), [statusModel]);
  const status = useSyncExternalStore(statusModel.subscribe, statusModel.getSnapshot);
  const workspaces = useWorkspaces();
  const name = workspaces.workspaces?.find((w) => w.id === workspaceId)?.name;
  const access = useWorkspaceAccess(workspaceId);
  const members = useMemo(() => new MembersApi(workspaceId), [workspaceId]);
  const running = status.state === "running";
  const presence = usePresenceRoom(workspaceId, userId);
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
          access={access}
          share={access?.role === "owner" ? <ShareButton api={members} /> : undefined}
          presence={presence && <PresenceAvatars room={presence} />}
        />
        {presence && <FollowBar room={presence} />}
        <LossNotice workspaceId={workspaceId} restored={status.restored} />
        <IdeLayout
          api={api}
          onTerminalConnected={statusModel.poll}
          readOnly={access?.role === "viewer"}
          presence={presence}
        />
      </div>
    </CommandsContext>
  );
}

/** The page's place in the workspace's presence room, while the page is open. */
function usePresenceRoom(workspaceId: string, userId: string): PresenceRoom | undefined {
  const [room, setRoom] = useState<PresenceRoom>();
  useEffect(() => {
    const joined = new PresenceRoom(workspaceId, userId);
    setRoom(joined);
    return () => joined.destroy();
  }, [workspaceId, userId]);
  return room;
}
