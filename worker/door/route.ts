/**
 * One workspace route, declared once in the feature that serves it: its
 * method and path, the least role it needs, what it does with a sleeping
 * workspace, its inputs (zod schemas for the path's params, the query and a
 * JSON body, or the limit of a streamed body) and its handler. The Worker
 * forwards every `/api/workspaces/{id}/...` and `/ws/workspaces/{id}/...`
 * request to the Workspace; the dispatcher there (dispatch.ts) applies the
 * declaration before the handler runs, so a handler sees only a caller with
 * the role and inputs that passed their schema.
 */
import type { z } from "zod";
import type { ConnectionKind } from "../../protocol/connections";
import type { Role } from "../../protocol/roles";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * What a route does with a sleeping workspace (a GET never wakes one, so a
 * link on another site cannot start a container with its owner's cookie):
 *   "never": answers from the Durable Object, or from the container only
 *            while it runs; does not count as use (an open tab's polls)
 *   "read":  reads the running container: refused 409 WORKSPACE_ASLEEP while
 *            it is not running nor starting
 *   "wake":  starts or wakes it (its handler does, once the inputs are checked);
 *            only a change (not a GET) or a WebSocket the user opened
 */
export type Wake = "never" | "read" | "wake";

/** A query or params schema: it gets an object of strings (each name once). */
export type ObjectSchema = z.ZodType;

/** A JSON body's schema whose checked value is the feature's request type (protocol/): `schema satisfies Body<T>`. */
export type Body<T> = z.ZodType<T, unknown>;

export type BodyInput<B extends z.ZodType> =
  /** A JSON object (Content-Type: application/json), at most MAX_JSON_BODY_BYTES; `optional`: no body is `{}`. */
  | { json: B; optional?: true }
  /** The raw bytes, streamed on to the container: Content-Length is required and at most `limit`. */
  | { stream: number };

export interface Input<P extends ObjectSchema, Q extends ObjectSchema, B extends z.ZodType> {
  /** One entry per `:name` segment of the path. */
  params?: P;
  query?: Q;
  body?: BodyInput<B>;
  /** The code of a refusal whose schema gave none (a custom check carries its own): BAD_REQUEST by default. */
  invalid?: import("../../protocol/errors").ErrorCode;
}

/** What a handler gets: its checked inputs, the caller, and the context the door was given (the workspace's parts). */
export interface Call<P, Q, B, W> {
  params: P;
  query: Q;
  body: B;
  request: Request;
  url: URL;
  caller: { id: string; session: string; role: Role };
  workspace: W;
}

export interface RouteSpec<P extends ObjectSchema, Q extends ObjectSchema, B extends z.ZodType, W> {
  method: Method;
  /** After `/api/workspaces/{id}` (or `/ws/workspaces/{id}`); `:name` segments are params. */
  path: `/${string}`;
  /** A WebSocket upgrade, under `/ws/`; 426 UPGRADE_REQUIRED without `Upgrade: websocket`. */
  socket?: true;
  /**
   * The kind of long-lived connection it opens (a WebSocket, or an event stream): one person holds
   * at most MAX_CONNECTIONS_PER_PERSON of a kind (protocol/connections.ts), past that 429.
   */
  connection?: ConnectionKind;
  role: Role;
  wake: Wake;
  /**
   * What a client developer needs to know, in a sentence or two: what it does, what it answers,
   * its notable statuses, codes and headers. docs/api.md is generated from it (worker/door/api-reference.ts).
   */
  doc: string;
  /** An unclaimed spare answers it (its status, its deletion); every other route is 404 there (worker/lifecycle/spare.ts). */
  spare?: true;
  input: Input<P, Q, B>;
  handle(call: Call<z.output<P>, z.output<Q>, z.output<B>, W>): Promise<Response>;
}

/** One feature's routes, under the name the API reference gives them (docs/api.md). */
export interface RouteGroup<W = unknown> {
  feature: string;
  /** The guide that explains the feature's behaviour, relative to docs/ (such as "files.md"). */
  guide?: string;
  routes: readonly Route<W>[];
}

/** A route of a table, whatever its inputs; `W` is what its handler is given (the door knows no feature). */
// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of every input type
export type Route<W = any> = RouteSpec<any, any, any, W>;

/**
 * The declarer of routes whose handlers get `W` (worker/workspace-parts.ts
 * makes the workspace's): the types of a handler's inputs come from its schemas.
 */
export function routeDefiner<W>() {
  return <
    P extends ObjectSchema = ObjectSchema,
    Q extends ObjectSchema = ObjectSchema,
    B extends z.ZodType = z.ZodType,
  >(
    route: RouteSpec<P, Q, B, W>,
  ): Route<W> => route;
}

/** `Response.json`, for handlers. */
export function json(value: unknown, init?: ResponseInit): Response {
  return Response.json(value, init);
}
