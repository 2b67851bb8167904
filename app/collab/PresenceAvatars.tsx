import type { CSSProperties } from "react";
import { COMPACT_LAYOUT, useMediaQuery } from "../hooks/useMediaQuery";
import type { PresenceRoom } from "./presence";
import { namesOf, type Person } from "./presence-model";
import { usePresence } from "./usePresence";
import "./presence.css";

/** Marks the parts of the page whose use does not end following (the avatars, the follow bar). */
export const KEEPS_FOLLOWING = "data-keeps-following";
const keepsFollowing = { [KEEPS_FOLLOWING]: "" };

/** Avatars shown in the header before the rest go into the "+N" list (a phone's header has room for one item). */
const SHOWN = 3;

const colour = (person: Pick<Person, "color">) => ({ "--person": person.color }) as CSSProperties;

/**
 * The header's "who is here": one avatar per other person (initials in their
 * colour, name in the tooltip and label); a click follows them, a second
 * click stops. More people than fit go behind a "+N" list.
 */
export function PresenceAvatars({ room }: { room: PresenceRoom }) {
  const { people, following } = usePresence(room);
  const compact = useMediaQuery(COMPACT_LAYOUT);
  if (people.length === 0) return null;
  // The person followed always shows, first.
  const ordered = following ? [following, ...people.filter((person) => person.id !== following.id)] : people;
  const visible = compact
    ? people.length === 1
      ? ordered
      : []
    : people.length > SHOWN + 1
      ? ordered.slice(0, SHOWN)
      : ordered;
  const rest = ordered.slice(visible.length);
  const toggle = (person: Person) => (following?.id === person.id ? room.stopFollowing() : room.follow(person.id));
  return (
    <div className="presence" data-testid="presence" {...keepsFollowing}>
      {visible.map((person) => (
        <button
          key={person.id}
          type="button"
          className="presence-avatar"
          style={colour(person)}
          data-testid="presence-avatar"
          data-person={person.id}
          data-name={person.name}
          aria-pressed={following?.id === person.id}
          aria-label={
            following?.id === person.id ? `${person.name} (following: click to stop)` : `Follow ${person.name}`
          }
          title={describe(person, following?.id === person.id)}
          onClick={() => toggle(person)}
        >
          {person.initials}
        </button>
      ))}
      {rest.length > 0 && (
        <details className="presence-more">
          <summary
            className="presence-count"
            data-testid="presence-count"
            title={`${people.length} people here besides you`}
            aria-label={visible.length > 0 ? `${rest.length} more people here` : `${rest.length} people here`}
          >
            {visible.length > 0 ? `+${rest.length}` : rest.length}
          </summary>
          <ul className="presence-list">
            {ordered.map((person) => (
              <li key={person.id}>
                <button
                  type="button"
                  onClick={() => toggle(person)}
                  title={describe(person, following?.id === person.id)}
                >
                  <span className="presence-avatar small" style={colour(person)} aria-hidden>
                    {person.initials}
                  </span>
                  {person.name}
                  {following?.id === person.id && <span className="presence-following"> · following</span>}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function describe(person: Person, following: boolean): string {
  const where = person.active ? ` · ${person.active}${person.line ? `:${person.line}` : ""}` : "";
  return `${person.name}${where} — ${following ? "following; click to stop" : "click to follow"}`;
}

/** "Following NAME" with a Stop button while following; then why it stopped, until dismissed. */
export function FollowBar({ room }: { room: PresenceRoom }) {
  const { following, stopped } = usePresence(room);
  if (following) {
    return (
      <div className="follow-bar" role="status" data-testid="follow-bar" style={colour(following)} {...keepsFollowing}>
        <span className="presence-avatar small" aria-hidden>
          {following.initials}
        </span>
        <span>
          Following <strong>{following.name}</strong>
          {following.active ? ` · ${following.active}` : ""}
        </span>
        <button type="button" data-testid="follow-stop" onClick={() => room.stopFollowing()}>
          Stop
        </button>
      </div>
    );
  }
  if (!stopped) return null;
  return (
    <div className="follow-bar stopped" role="status" data-testid="follow-stopped" {...keepsFollowing}>
      <span>{stopped}</span>
      <button type="button" aria-label="Dismiss" onClick={() => room.dismissStopped()}>
        ×
      </button>
    </div>
  );
}

/** Small avatars of the people at something (a file's row, a terminal's tab), their names in the tooltip. */
export function PeopleMark({
  people,
  label,
  testId,
}: {
  people: readonly Pick<Person, "id" | "name" | "color" | "initials">[];
  /** The tooltip from the names: "Open by Ada and Grace". */
  label: (names: string) => string;
  testId: string;
}) {
  const text = label(namesOf(people));
  return (
    <span className="people-mark" data-testid={testId} title={text} aria-label={text} role="img">
      {people.slice(0, 2).map((person) => (
        <span key={person.id} className="people-mark-dot" style={colour(person)}>
          {person.initials}
        </span>
      ))}
      {people.length > 2 && <span className="people-mark-more">+{people.length - 2}</span>}
    </span>
  );
}
