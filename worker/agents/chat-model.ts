/**
 * The agent panel's model, as the deployer configured it: an
 * OpenAI-compatible endpoint (its base URL and model in `vars`, its key a
 * Worker secret) or Workers AI through the `AI` binding. The request leaves
 * from the Worker, never from the container. Unconfigured, the answer says
 * exactly what to set.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";

/** The seed's model on Workers AI, unless AGENT_MODEL names another. */
export const DEFAULT_WORKERS_AI_MODEL = "@cf/moonshotai/kimi-k2.6";

export interface ChatModelEnv {
  /** Workers AI (an `ai` binding named AI in wrangler.jsonc). */
  AI?: Ai;
  /** The model's id: a Workers AI model, or the endpoint's own name for it. */
  AGENT_MODEL?: string;
  /** An OpenAI-compatible endpoint, such as https://api.example.com/v1 (a var). */
  AGENT_OPENAI_BASE_URL?: string;
  /** Its key (a Worker secret: `npx wrangler secret put AGENT_OPENAI_API_KEY`). */
  AGENT_OPENAI_API_KEY?: string;
}

export type ChatModelChoice = { ok: true; model: LanguageModel; label: string } | { ok: false; problem: string };

export const UNCONFIGURED =
  'The agent has no model. Either add Workers AI: an "ai": {"binding": "AI"} entry in wrangler.jsonc (the model is AGENT_MODEL in "vars", by default @cf/moonshotai/kimi-k2.6); or an OpenAI-compatible endpoint: AGENT_OPENAI_BASE_URL and AGENT_MODEL in "vars" and its key as a secret (npx wrangler secret put AGENT_OPENAI_API_KEY). Then deploy again.';

export function chatModel(env: ChatModelEnv): ChatModelChoice {
  const baseURL = env.AGENT_OPENAI_BASE_URL?.trim();
  if (baseURL) {
    if (!/^https?:\/\//.test(baseURL)) {
      return { ok: false, problem: `AGENT_OPENAI_BASE_URL must be an http(s) URL, not "${baseURL}".` };
    }
    const modelId = env.AGENT_MODEL?.trim();
    if (!modelId)
      return { ok: false, problem: "AGENT_OPENAI_BASE_URL is set: set AGENT_MODEL (the endpoint's model id) too." };
    if (!env.AGENT_OPENAI_API_KEY) {
      return {
        ok: false,
        problem:
          "AGENT_OPENAI_BASE_URL is set: add its key as a secret (npx wrangler secret put AGENT_OPENAI_API_KEY).",
      };
    }
    const provider = createOpenAICompatible({ name: "agent", baseURL, apiKey: env.AGENT_OPENAI_API_KEY });
    return { ok: true, model: provider.chatModel(modelId), label: `${modelId} at ${new URL(baseURL).host}` };
  }
  if (env.AI) {
    const modelId = env.AGENT_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL;
    const workersAi = createWorkersAI({ binding: env.AI });
    return { ok: true, model: workersAi(modelId as Parameters<typeof workersAi>[0]), label: `${modelId} (Workers AI)` };
  }
  return { ok: false, problem: UNCONFIGURED };
}
