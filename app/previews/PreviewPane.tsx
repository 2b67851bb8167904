import { useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { DevServerState, ListeningPort } from "../../protocol/previews";
import type { PreviewsApi } from "../api/previews";
import { useRegisterCommands } from "../commands/useCommands";
import { useAction } from "../hooks/useAction";
import { hostHint } from "./host-hints";
import { PreviewsModel } from "./previews-model";
import { SharePanel } from "./SharePanel";
import "./preview.css";

/** The template's `npm run dev` port, previewed by default. */
const DEFAULT_PORT = 5173;

const DEVICES = [
  { label: "Full width", width: undefined },
  { label: "1280 desktop", width: 1280 },
  { label: "768 tablet", width: 768 },
  { label: "375 phone", width: 375 },
] as const;

/**
 * The preview pane: the dev servers listening in the workspace, each shown on
 * its own preview hostname in a frame, with a URL bar, reload, open in a new
 * tab, device widths, the Run button's dev server, and share links.
 */
export function PreviewPane({ previews }: { previews: PreviewsApi }) {
  const model = useMemo(() => new PreviewsModel(previews), [previews]);
  const {
    overview,
    overviewError,
    access: granted,
    accessError,
  } = useSyncExternalStore(model.subscribe, model.getSnapshot);
  useEffect(() => model.watch(), [model]);
  const [chosenPort, setChosenPort] = useState<number>();
  const [path, setPath] = useState("/");
  const [reloads, setReloads] = useState(0);
  const [device, setDevice] = useState(0);
  const [sharing, setSharing] = useState(false);
  const action = useAction();

  const ports = overview?.ports ?? [];
  const port = chosenPort ?? (ports.find((p) => p.port === DEFAULT_PORT) ?? ports[0])?.port ?? DEFAULT_PORT;
  const listening = ports.find((p) => p.port === port);
  const shownPort = listening ? port : undefined;
  useEffect(() => model.show(shownPort), [model, shownPort]);
  // Until the effect above runs for a new port, the grant held is the old port's.
  const access = granted?.port === shownPort ? granted : undefined;
  const src = access ? new URL(path.replace(/^\/*/, ""), access.url).toString() : undefined;
  const width = DEVICES[device]?.width;

  useRegisterCommands(
    () => [
      { id: "preview.reload", title: "Reload the preview", run: () => setReloads((n) => n + 1) },
      {
        id: "preview.open",
        title: "Open the preview in a new tab",
        enabled: () => src !== undefined,
        run: () => void window.open(src, "_blank", "noopener,noreferrer"),
      },
      { id: "preview.share", title: "Share the preview…", enabled: () => !!listening, run: () => setSharing(true) },
    ],
    [src, listening],
  );

  const act = async (run: () => Promise<unknown>) => {
    await action.run(run);
    await model.refresh();
  };

  return (
    <div className="preview-pane">
      <div className="preview-toolbar" data-testid="preview-toolbar">
        <PortSelect ports={ports} port={port} process={listening?.process} onChoose={setChosenPort} />
        <PathBar
          onGo={(next) => {
            setPath(next);
            setReloads((n) => n + 1);
          }}
        />
        <button
          type="button"
          title="Reload"
          aria-label="Reload the preview"
          data-testid="preview-reload"
          onClick={() => setReloads((n) => n + 1)}
        >
          <span aria-hidden="true">⟳</span>
          <span className="label">Reload</span>
        </button>
        <a
          className={`button-link${src ? "" : " disabled"}`}
          href={src}
          target="_blank"
          rel="noopener noreferrer"
          title="Open in a new tab"
          aria-label="Open the preview in a new tab"
          data-testid="preview-open"
        >
          <span aria-hidden="true">↗</span>
          <span className="label">Open</span>
        </a>
        <select
          aria-label="Device width"
          data-testid="preview-device"
          value={device}
          onChange={(e) => setDevice(Number(e.target.value))}
        >
          {DEVICES.map((d, i) => (
            <option key={d.label} value={i}>
              {d.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          data-testid="preview-share"
          aria-expanded={sharing}
          disabled={!listening}
          onClick={() => setSharing((s) => !s)}
        >
          Share
        </button>
      </div>
      {sharing && listening && <SharePanel previews={previews} port={port} onClose={() => setSharing(false)} />}
      {(action.error ?? accessError ?? overviewError) && (
        <p className="preview-error" role="alert">
          {action.error ?? accessError ?? overviewError}
        </p>
      )}
      {listening && <PreviewNotices port={port} listening={listening} previewUrl={access?.url} />}
      <div className="preview-stage">
        {listening && src ? (
          <iframe
            key={`${src}#${reloads}`}
            className="preview-frame"
            style={width ? { width: `${width}px` } : undefined}
            title={`Preview of port ${port}`}
            data-testid="preview-frame"
            src={src}
            // Its own origin already; no top navigation keeps the IDE in place.
            sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-modals allow-downloads"
          />
        ) : (
          <NothingListening
            port={port}
            devServer={overview?.devServer}
            loading={!overview && !overviewError}
            onRun={() => act(() => previews.runDevServer())}
          />
        )}
      </div>
      {overview?.devServer.state === "running" && (
        <div className="preview-footer">
          <span>
            Run: <code>{overview.devServer.command}</code> is running
          </span>
          <button type="button" data-testid="preview-stop" onClick={() => act(() => previews.stopDevServer())}>
            Stop
          </button>
        </div>
      )}
    </div>
  );
}

function NothingListening(props: {
  port: number;
  devServer: DevServerState | undefined;
  loading: boolean;
  onRun: () => void;
}) {
  const { port, devServer, loading, onRun } = props;
  if (loading) return <p className="placeholder">Looking for dev servers…</p>;
  const exited = devServer?.state === "exited";
  const starting = devServer?.state === "running";
  return (
    <div className="preview-empty" data-testid="preview-empty">
      <h3>
        {exited
          ? "The dev server exited"
          : starting
            ? `Waiting for port ${port}…`
            : `Nothing is listening on port ${port}`}
      </h3>
      {!starting && (
        <p>
          Run <code>npm run dev</code> in the terminal, or start it here.{" "}
          <button type="button" data-testid="preview-run" onClick={onRun}>
            {exited ? "Run again" : "Run npm run dev"}
          </button>
        </p>
      )}
      {devServer?.output && (
        <pre className="preview-output" data-testid="preview-output">
          {devServer.output}
        </pre>
      )}
    </div>
  );
}

/** The listening ports, plus the chosen one while nothing listens on it. */
function portChoices(ports: ListeningPort[], port: number): Pick<ListeningPort, "port" | "process">[] {
  return ports.some((p) => p.port === port) ? ports : [{ port }, ...ports];
}

function shortProcess(args: string): string {
  const words = args.split(/\s+/).map((w) => w.split("/").pop() ?? w);
  return words.slice(0, 3).join(" ").slice(0, 30);
}

/** The port shown: those listening, with the process of each. */
function PortSelect(props: {
  ports: ListeningPort[];
  port: number;
  process: string | undefined;
  onChoose: (port: number) => void;
}) {
  const { ports, port, process, onChoose } = props;
  return (
    <select
      aria-label="Port"
      title={process ? `:${port} ${process}` : `:${port}`}
      data-testid="preview-port"
      value={port}
      onChange={(e) => onChoose(Number(e.target.value))}
    >
      {portChoices(ports, port).map((p) => (
        <option key={p.port} value={p.port}>
          :{p.port}
          {p.process ? ` ${shortProcess(p.process)}` : ""}
        </option>
      ))}
    </select>
  );
}

/** The URL bar: a path on the preview's host, loaded on Enter. */
function PathBar({ onGo }: { onGo: (path: string) => void }) {
  const [draft, setDraft] = useState("/");
  return (
    <form
      className="preview-url"
      onSubmit={(e) => {
        e.preventDefault();
        const next = draft.startsWith("/") ? draft : `/${draft}`;
        setDraft(next);
        onGo(next);
      }}
    >
      <input
        aria-label="Path"
        data-testid="preview-path"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        spellCheck={false}
      />
    </form>
  );
}

/** What a person may have to do for a port to preview: a loopback-only server, a framework's allowed hosts. */
function PreviewNotices({
  port,
  listening,
  previewUrl,
}: {
  port: number;
  listening: ListeningPort;
  previewUrl: string | undefined;
}) {
  const hint = hostHint(listening.process, previewUrl);
  return (
    <>
      {listening.loopbackOnly && !listening.forwarded && (
        <p className="preview-warning" data-testid="preview-loopback">
          {listening.forwardError
            ? `Port ${port} listens on 127.0.0.1 only and could not be forwarded: ${listening.forwardError}. `
            : `Port ${port} listens on 127.0.0.1 only; the IDE is forwarding it. `}
          If the preview stays empty, start the server with <code>--host 0.0.0.0</code>.
        </p>
      )}
      {hint && (
        <p className="preview-warning" data-testid="preview-host-hint">
          {hint.framework} serves its dev resources (hot reload, client code) only to origins it knows. Add{" "}
          <code>{hint.add}</code> to <code>{hint.file}</code> and restart it.
        </p>
      )}
    </>
  );
}
