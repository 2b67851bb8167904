/** How someone signed in: the owner's password, Cloudflare Access, or an invite link (a guest). */
export type SignInKind = "password" | "access" | "guest";

/** Who is signed in: `GET /api/session`. */
export interface SessionInfo {
  user: {
    /** Stable id: `owner` for the password owner, the email for Cloudflare Access users, `guest-...` for guests. */
    id: string;
    /** How the user signed in: a guest came by an invite link and may reach only `workspace`. */
    via: SignInKind;
    /** A guest's display name. */
    name?: string;
    /** The one workspace a guest may reach. */
    workspace?: string;
  };
}

/** `POST /api/session` */
export interface SignInRequest {
  password: string;
}

/** One of the user's live sessions: `GET /api/sessions`. */
export interface SessionSummary {
  /** Names the session for `DELETE /api/sessions/{id}`; not a credential. */
  id: string;
  via: SignInKind;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch; updated at most once a minute. */
  lastUsedAt: number;
  /** When it ends by itself (7 days after sign-in; an Access session when its token expires). */
  expiresAt: number;
  userAgent: string;
  /** The session this request came with. */
  current: boolean;
}

/** `GET /api/sessions` */
export interface SessionList {
  sessions: SessionSummary[];
}

/** Where an Access user ends their Cloudflare Access session (then signs in again through Access). */
export const ACCESS_LOGOUT_PATH = "/cdn-cgi/access/logout";
