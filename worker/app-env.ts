/**
 * The Worker's Hono environment: its bindings and the signed-in user. A leaf
 * module (it imports types only), so the auth middleware, the routes and the
 * door can all name it without importing each other.
 */
import type { SignInKind } from "../protocol/session";

export interface User {
  id: string;
  /** A guest came by an invite link: a member of one workspace, who can make none. */
  via: SignInKind;
  /** The live session this request came with (a row in the user's Directory object). */
  sessionId: string;
}

export type AppEnv = { Bindings: Env; Variables: { user: User } };
