/**
 * A scripted OpenAI-compatible model for tests (no real model is reachable
 * from the test machine): `POST /v1/chat/completions` on loopback, answered
 * by a script over the conversation it is sent, so the IDE's real provider
 * (@ai-sdk/openai-compatible) and its real tool loop run against it.
 *
 * The script, on the last message:
 *   the person's "count slowly to N"      -> answers "1 2 3 … N", a number every 100 ms
 *   the person's "run: CMD"               -> calls run_command {command: CMD}
 *   the person's "write PATH: CONTENT"    -> calls write_file {path: PATH, content: CONTENT}
 *   the person's "edit PATH: OLD => NEW"  -> calls edit_file {path, oldText: OLD, newText: NEW}
 *   the person's anything else            -> answers "You said: TEXT"
 *   a tool's answer                       -> answers "Tool answered: " and its first 300 characters
 * A request with `stream: true` (the panel streams) is answered as OpenAI
 * streams: server-sent `chat.completion.chunk`s, a text in a few deltas.
 * A request without the test key is refused 401, as a real endpoint would.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export const SCRIPTED_MODEL_ID = "scripted-test-model";
export const SCRIPTED_MODEL_KEY = "test-agent-key";

export interface ScriptedModel {
  /** The base URL to give AGENT_OPENAI_BASE_URL (ends with /v1). */
  baseUrl: string;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "no route" } }));
        return;
      }
      if (req.headers.authorization !== `Bearer ${SCRIPTED_MODEL_KEY}`) {
        res
          .writeHead(401, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error" } }));
        return;
      }
      const body = JSON.parse(await readBody(req)) as { model: string; messages: ChatMessage[]; stream?: boolean };
      calls += 1;
      const reply = script(body.messages, calls);
      if (body.stream) {
        await streamReply(res, `chatcmpl-${calls}`, body.model, reply);
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", ...reply }, finish_reason: reply.finish }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Reply =
  | { content: string; finish: "stop"; deltas?: string[]; deltaMs?: number }
  | {
      content: null;
      tool_calls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
      finish: "tool_calls";
    };

function script(messages: ChatMessage[], call: number): Reply {
  const last = messages.at(-1);
  const text = textOf(last);
  if (last?.role === "tool") return { content: `Tool answered: ${text.slice(0, 300)}`, finish: "stop" };
  const count = /^count slowly to (\d+)$/.exec(text);
  if (count?.[1]) {
    const deltas = Array.from({ length: Number(count[1]) }, (_, i) => `${i + 1} `);
    return { content: deltas.join(""), finish: "stop", deltas, deltaMs: 100 };
  }
  const toolCall = (name: string, args: Record<string, unknown>): Reply => ({
    content: null,
    tool_calls: [{ id: `call_${call}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    finish: "tool_calls",
  });
  const run = /^run: ([\s\S]+)$/.exec(text);
  if (run?.[1]) return toolCall("run_command", { command: run[1] });
  const write = /^write ([^:]+): ([\s\S]*)$/.exec(text);
  if (write?.[1]) return toolCall("write_file", { path: write[1], content: write[2] ?? "" });
  const edit = /^edit ([^:]+): ([\s\S]+) => ([\s\S]*)$/.exec(text);
  if (edit?.[1]) return toolCall("edit_file", { path: edit[1], oldText: edit[2], newText: edit[3] ?? "" });
  return { content: `You said: ${text}`, finish: "stop" };
}

/** The reply as OpenAI streams it; stops writing when the client goes (a stop in the panel). */
async function streamReply(res: ServerResponse, id: string, model: string, reply: Reply): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let gone = false;
  res.on("close", () => {
    gone = true;
  });
  const send = (delta: object, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`,
    );
  if (reply.finish === "tool_calls") {
    send({ role: "assistant", content: null, tool_calls: reply.tool_calls.map((call, index) => ({ index, ...call })) });
  } else {
    const deltas = reply.deltas ?? reply.content.match(/[\s\S]{1,8}/g) ?? [];
    for (const content of deltas) {
      if (gone) return;
      send({ role: "assistant", content });
      if (reply.deltaMs) await new Promise((resolve) => setTimeout(resolve, reply.deltaMs));
    }
  }
  if (gone) return;
  send({}, reply.finish);
  res.end("data: [DONE]\n\n");
}

function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
