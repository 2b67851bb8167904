import { z } from "zod";
import { ErrorCode } from "../../protocol/errors";
import { checkPolicy, checkSecret, isSecretName, MAX_SECRETS, type SecretInfo } from "../../protocol/network";
import { afterEntry, none, refusal } from "../door/schema";
import { notFound } from "../errors";
import { defineRoute, type WorkspaceRoute } from "../workspace-parts";

/**
 * `/api/workspaces/{id}/network...`: where the workspace may connect, the
 * secrets added to its outbound HTTPS (write-only: values never come back),
 * and the log of its outbound requests. Deciding them is the owner's.
 */
const policy = z.record(z.string(), z.unknown()).transform((body, ctx) => {
  const checked = checkPolicy(body);
  if (!checked.ok) {
    ctx.addIssue({
      code: "custom",
      message: `Not a network policy: ${checked.reason}.`,
      params: { code: ErrorCode.INVALID_NETWORK_POLICY },
    });
    return z.NEVER;
  }
  if (body.restart !== undefined && typeof body.restart !== "boolean") {
    ctx.addIssue({
      code: "custom",
      message: "restart must be true or false.",
      params: { code: ErrorCode.INVALID_NETWORK_POLICY },
    });
    return z.NEVER;
  }
  return { policy: checked.value, restart: body.restart === true };
});

const secret = z.record(z.string(), z.unknown()).transform((body, ctx) => {
  const checked = checkSecret(body);
  if (!checked.ok) {
    ctx.addIssue({
      code: "custom",
      message: `Not a secret: ${checked.reason}.`,
      params: { code: ErrorCode.INVALID_SECRET },
    });
    return z.NEVER;
  }
  return checked.value;
});

const secretName = z.string().refine(
  isSecretName,
  refusal(
    ErrorCode.INVALID_SECRET,
    (name) =>
      `"${String(name).slice(0, 80)}" is not a secret name: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
  ),
);

export const NETWORK_ROUTES: WorkspaceRoute[] = [
  defineRoute({
    method: "GET",
    path: "/network",
    role: "viewer",
    wake: "never",
    doc: "NetworkSettings `{mode, allow, secrets: [{name, hosts, header, updatedAt}], containerMode, openAvailable}`; `containerMode` is the mode the running container started with (null when none runs).",
    input: { query: none },
    handle: async ({ workspace }) => Response.json(await workspace.network.settings()),
  }),
  defineRoute({
    method: "PUT",
    path: "/network",
    role: "owner",
    wake: "never",
    doc: "`{mode, allow?, restart?}`: the network policy; answers NetworkSettings (`restarted: true` when it restarted). 400 INVALID_NETWORK_POLICY with the reason; 409 RESTART_REQUIRED when a running container goes to or from `open` without `restart: true`; 403 INTERNET_DISABLED; 503 CONTAINER_UNAVAILABLE when the change is saved but the running container could not be given it.",
    input: { body: { json: policy } },
    handle: async ({ body, workspace }) => Response.json(await workspace.network.update(body.policy, body.restart)),
  }),
  defineRoute({
    method: "GET",
    path: "/network/log",
    role: "viewer",
    wake: "never",
    doc: "EgressLog `{entries: [{id, at, method, scheme, host, path, verdict, status, error?, secrets, ms?}], intercepting}`: the outbound requests after `after` (an allowed one once its answer's headers came). Never wakes, not counted as use.",
    input: {
      query: z.object({
        after: afterEntry,
      }),
    },
    handle: async ({ query, workspace }) => Response.json(await workspace.network.logSince(query.after)),
  }),
  defineRoute({
    method: "GET",
    path: "/network/secrets",
    role: "owner",
    wake: "never",
    doc: "`{secrets: SecretInfo[]}`: names, hosts and headers, never values.",
    input: { query: none },
    handle: async ({ workspace }) => {
      const secrets: SecretInfo[] = await workspace.network.secretInfos();
      return Response.json({ secrets });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/network/secrets/:name",
    role: "owner",
    wake: "never",
    doc: "`{value, hosts, header?}`: creates or replaces a secret added to the workspace's outbound HTTPS to `hosts`; answers SecretInfo, without its value. 400 INVALID_SECRET for `*` or no hosts, a header that frames the request (Host, Content-Length, ...), a line break.",
    input: { params: z.object({ name: secretName }), body: { json: secret } },
    handle: async ({ params, body, workspace }) =>
      Response.json(await workspace.network.putSecret(params.name, body, MAX_SECRETS)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/network/secrets/:name",
    role: "owner",
    wake: "never",
    doc: "Forgets the secret: 204, or 404.",
    input: { params: z.object({ name: secretName }) },
    handle: async ({ params, workspace }) => {
      if (!(await workspace.network.deleteSecret(params.name))) throw notFound("No secret with this name.");
      return new Response(null, { status: 204 });
    },
  }),
];
