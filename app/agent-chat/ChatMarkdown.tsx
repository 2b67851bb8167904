import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

/**
 * Elements the model's Markdown may not become. Raw HTML is shown as text
 * (react-markdown's default). An image would be fetched from wherever the
 * text says, with no click: a way for an injected instruction to send out
 * what the agent read, so it shows as its text instead. Links open in a new
 * tab, without the IDE as their opener or referrer.
 */
const COMPONENTS: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer" title={href}>
      {children}
    </a>
  ),
  img: ({ alt, src }) => <span className="agent-chat-image">[image: {alt || String(src ?? "")}]</span>,
};

const PLUGINS = [remarkGfm];

/** The agent's text as Markdown (GitHub's: code blocks, lists, tables), as chat panels show it. */
export function ChatMarkdown({ text }: { text: string }) {
  return (
    <Markdown remarkPlugins={PLUGINS} components={COMPONENTS}>
      {text}
    </Markdown>
  );
}
