import { ErrorCode } from "../../protocol/errors";
import type { GitHubDeviceCode, GitHubSignIn } from "../../protocol/git";
import { AppError, describe } from "../errors";

/** GitHub's OAuth device flow (no callback URL): where the codes are asked for. */
export const GITHUB_DEVICE_CODE_URL = "https://github.com/login/device/code";
export const GITHUB_TOKEN_URL = "https://github.com/login/oauth/access_token";
/** Private repositories, to pull and push. */
const SCOPE = "repo";

interface Pending {
  deviceCode: string;
  expiresAt: number;
  /** Seconds GitHub wants between polls (it says "slow_down" when asked sooner). */
  interval: number;
  nextPollAt: number;
}

/**
 * Signs a workspace's owner in to GitHub with the device flow: `start`
 * answers a code for the person to enter at github.com/login/device; `poll`
 * asks GitHub whether they did and, once they have, hands the token to
 * `store` (the workspace's network secrets). The device code and the token
 * stay in the Durable Object: neither reaches the browser or the container.
 */
export class GitHubDeviceFlow {
  private pending: Pending | undefined;

  constructor(
    private readonly clientId: string | undefined,
    private readonly send: (request: Request) => Promise<Response>,
    private readonly store: (token: string) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  get available(): boolean {
    return Boolean(this.clientId);
  }

  async start(): Promise<GitHubDeviceCode> {
    const body = await this.post(GITHUB_DEVICE_CODE_URL, { client_id: this.configured(), scope: SCOPE });
    const { device_code, user_code, verification_uri, expires_in, interval } = body;
    if (typeof device_code !== "string" || typeof user_code !== "string" || typeof verification_uri !== "string") {
      throw new AppError(ErrorCode.GIT_REFUSED, `GitHub did not start the sign-in: ${githubError(body)}`);
    }
    const seconds = typeof interval === "number" ? interval : 5;
    const expiresAt = this.now() + (typeof expires_in === "number" ? expires_in : 900) * 1000;
    this.pending = { deviceCode: device_code, expiresAt, interval: seconds, nextPollAt: this.now() + seconds * 1000 };
    return {
      userCode: user_code,
      verificationUri: verification_uri,
      expiresAt: new Date(expiresAt).toISOString(),
      interval: seconds,
    };
  }

  /** Whether the person has entered the code; asked no more often than GitHub allows. */
  async poll(): Promise<GitHubSignIn> {
    const pending = this.pending;
    if (!pending || this.now() >= pending.expiresAt) {
      this.pending = undefined;
      return { state: "expired" };
    }
    if (this.now() < pending.nextPollAt) return { state: "pending", interval: pending.interval };
    const body = await this.post(GITHUB_TOKEN_URL, {
      client_id: this.configured(),
      device_code: pending.deviceCode,
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
    });
    if (typeof body.access_token === "string" && body.access_token) {
      this.pending = undefined;
      await this.store(body.access_token);
      return { state: "done" };
    }
    switch (body.error) {
      case "slow_down":
        pending.interval = typeof body.interval === "number" ? body.interval : pending.interval + 5;
        break;
      case "authorization_pending":
        break;
      case "expired_token":
        this.pending = undefined;
        return { state: "expired" };
      case "access_denied":
        this.pending = undefined;
        return { state: "denied" };
      default:
        this.pending = undefined;
        throw new AppError(ErrorCode.GIT_REFUSED, `GitHub refused the sign-in: ${githubError(body)}`);
    }
    pending.nextPollAt = this.now() + pending.interval * 1000;
    return { state: "pending", interval: pending.interval };
  }

  private configured(): string {
    if (!this.clientId) {
      throw new AppError(
        ErrorCode.INVALID_STATE,
        "GitHub sign-in is not set up on this server (GITHUB_OAUTH_CLIENT_ID): paste a token instead.",
      );
    }
    return this.clientId;
  }

  private async post(url: string, form: Record<string, string>): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.send(
        new Request(url, {
          method: "POST",
          headers: { Accept: "application/json", "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(form).toString(),
        }),
      );
    } catch (error) {
      throw new AppError(ErrorCode.GIT_REFUSED, `GitHub could not be reached: ${describe(error)}`);
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!body || typeof body !== "object") {
      throw new AppError(ErrorCode.GIT_REFUSED, `GitHub answered ${response.status} without JSON.`);
    }
    return body;
  }
}

function githubError(body: Record<string, unknown>): string {
  const text = [body.error, body.error_description].filter((part) => typeof part === "string").join(": ");
  return text || "no reason given";
}
