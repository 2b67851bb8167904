import { Hono } from "hono";
import { ErrorCode } from "../../protocol/errors";
import { checkPolicy, checkSecret, isSecretName, type SecretInfo } from "../../protocol/network";
import { AppError, notFound } from "../errors";
import { readJsonObject } from "../http";
import { type AppEnv, requestedWorkspace } from "../workspace-access";

/**
 * `/api/workspaces/{id}/network...`: where the workspace may connect, the
 * secrets added to its outbound HTTPS (write-only: values never come back),
 * and the log of its outbound requests.
 */
export const networkRoutes = new Hono<AppEnv>();

networkRoutes.get("/:id/network", async (c) => c.json(await requestedWorkspace(c).stub.networkSettings()));

networkRoutes.put("/:id/network", async (c) => {
  const { stub } = requestedWorkspace(c);
  const body = await readJsonObject(c.req.raw);
  const policy = checkPolicy(body);
  if (!policy.ok) throw new AppError(ErrorCode.INVALID_NETWORK_POLICY, `Not a network policy: ${policy.reason}.`);
  if (body.restart !== undefined && typeof body.restart !== "boolean") {
    throw new AppError(ErrorCode.INVALID_NETWORK_POLICY, "restart must be true or false.");
  }
  return c.json(await stub.updateNetwork(policy.value, body.restart === true));
});

/** `?after=ID`: log entries newer than ID. */
networkRoutes.get("/:id/network/log", async (c) => {
  const { stub } = requestedWorkspace(c);
  const after = c.req.query("after") ?? "0";
  if (!/^\d{1,15}$/.test(after)) throw new AppError(ErrorCode.BAD_REQUEST, "after must be a log entry id (a number).");
  return c.json(await stub.networkLog(Number(after)));
});

networkRoutes.get("/:id/network/secrets", async (c) => {
  const secrets: SecretInfo[] = await requestedWorkspace(c).stub.networkSecrets();
  return c.json({ secrets });
});

networkRoutes.put("/:id/network/secrets/:name", async (c) => {
  const { stub } = requestedWorkspace(c);
  const name = checkSecretName(c.req.param("name"));
  const secret = checkSecret(await readJsonObject(c.req.raw));
  if (!secret.ok) throw new AppError(ErrorCode.INVALID_SECRET, `Not a secret: ${secret.reason}.`);
  return c.json(await stub.putSecret(name, secret.value));
});

networkRoutes.delete("/:id/network/secrets/:name", async (c) => {
  const { stub } = requestedWorkspace(c);
  if (!(await stub.deleteSecret(checkSecretName(c.req.param("name"))))) throw notFound("No secret with this name.");
  return c.body(null, 204);
});

function checkSecretName(name: string): string {
  if (!isSecretName(name)) {
    throw new AppError(
      ErrorCode.INVALID_SECRET,
      `"${name.slice(0, 80)}" is not a secret name: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  }
  return name;
}
