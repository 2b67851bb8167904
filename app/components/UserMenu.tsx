export function UserMenu({ userId, onSignOut }: { userId: string; onSignOut: () => void }) {
  return (
    <span className="user-menu">
      <span className="user-id" data-testid="user-id" title="Signed in as">
        {userId}
      </span>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </span>
  );
}
