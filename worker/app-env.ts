/**
 * The Worker's Hono environment: its bindings and the signed-in user. A leaf
 * module (it imports types only), so the auth middleware, the routes and the
 * door can all name it without importing each other.
 */
export interface User {
  id: string;
  via: "password" | "access";
  /** The live session this request came with (a row in the user's Directory object). */
  sessionId: string;
}

export type AppEnv = { Bindings: Env; Variables: { user: User } };
