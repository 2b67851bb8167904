/**
 * The workspace routes' part of the API reference (docs/api.md), made from
 * the route tables alone: each route's method and full path, the least role
 * it needs, its wake rule, its inputs (the names an object schema gives, the
 * kind of body and its limit) and its `doc`. api-reference.test.ts keeps
 * docs/api.md's generated section equal to what this renders.
 */
import { z } from "zod";
import { describeBytes, MAX_JSON_BODY_BYTES } from "../body-limits";
import type { Route, RouteGroup } from "./route";

/** The markers around the generated section of docs/api.md. */
export const GENERATED_START = "<!-- generated: workspace routes (npm run docs:api) -->";
export const GENERATED_END = "<!-- end generated -->";

/** The Markdown of every group's routes, in the groups' and the tables' order. */
export function renderApiReference(groups: readonly RouteGroup[]): string {
  const sections = groups.map((group) => {
    const lines = [`### ${group.feature}`, ""];
    if (group.guide) lines.push(`How it behaves: [${group.guide.replace(/#.*$/, "")}](${group.guide}).`, "");
    for (const route of group.routes) lines.push(...renderRoute(route), "");
    return lines.join("\n");
  });
  return `${sections.join("\n").trimEnd()}\n`;
}

/** The full path a client calls: `/api/workspaces/{id}/files`, `/ws/workspaces/{id}/terminals/{name}`. */
export function fullPath(route: Pick<Route, "path" | "socket">): string {
  const rest = route.path === "/" ? "" : route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
  return `${route.socket ? "/ws" : "/api"}/workspaces/{id}${rest}`;
}

function renderRoute(route: Route): string[] {
  const facts = [`Role: ${route.role}`, `Wake: ${route.wake}`];
  if (route.socket) facts.push("A WebSocket");
  else if (route.connection) facts.push("An event stream");
  const query = fieldNames(route.input.query);
  if (query) facts.push(`Query: ${query}`);
  const body = route.input.body;
  if (body && "stream" in body) {
    facts.push(`Body: the raw bytes, streamed (Content-Length required, at most ${describeBytes(body.stream)})`);
  } else if (body) {
    const fields = fieldNames(body.json);
    const what = fields === "" ? "JSON {} (nothing in it is used)" : fields ? `JSON {${fields}}` : "a JSON object";
    facts.push(`Body: ${what}${body.optional ? ", optional" : ""} (at most ${describeBytes(MAX_JSON_BODY_BYTES)})`);
  }
  if (route.spare) facts.push("An unclaimed spare answers it too");
  return [`#### \`${route.method} ${fullPath(route)}\``, "", `${facts.join(". ")}.`, "", route.doc.trim()];
}

/**
 * The names an object schema takes, `?` after an optional one (one a missing
 * value passes): "" for an object of none, undefined for a schema that is no
 * object (a check of the whole input, which its doc describes).
 */
function fieldNames(schema: z.ZodType | undefined): string | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .map(([name, field]) => `\`${name}${optional(field) ? "?" : ""}\``)
    .join(", ");
}

function optional(field: z.ZodType): boolean {
  try {
    return field.safeParse(undefined).success;
  } catch {
    // A check that cannot take a missing value at all.
    return false;
  }
}

/**
 * `document` with its generated section replaced by `generated`; throws when
 * the markers are missing or out of order.
 */
export function withGeneratedSection(document: string, generated: string): string {
  const start = document.indexOf(GENERATED_START);
  const end = document.indexOf(GENERATED_END);
  if (start < 0 || end < start) {
    throw new Error(`docs/api.md must hold "${GENERATED_START}" and, after it, "${GENERATED_END}".`);
  }
  return `${document.slice(0, start + GENERATED_START.length)}\n\n${generated}\n${document.slice(end)}`;
}
