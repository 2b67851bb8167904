/** Who is signed in: `GET /api/session`. */
export interface SessionInfo {
  user: {
    /** Stable id: `owner` for the password owner, the email for Cloudflare Access users. */
    id: string;
    /** How the user signed in. */
    via: "password" | "access";
  };
}

/** `POST /api/session` */
export interface SignInRequest {
  password: string;
}
