import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
// The code loaded: public/boot-retry.js starts counting afresh next time.
sessionStorage.removeItem("cloud-ide:boot-retries");
// Browser tests read terminals through these; a production build drops the import.
if (__CLOUD_IDE_TEST_HOOKS__) void import("./test-hooks");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
