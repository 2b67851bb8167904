// Loads before the app. If the app's code fails to download (a network blip,
// a laptop switching networks, a deploy in between), the page would stay
// blank; instead it tries again a few times, then says what happened.
(() => {
  const KEY = "cloud-ide:boot-retries";
  const MAX_RETRIES = 3;
  window.addEventListener(
    "error",
    (event) => {
      const script = event.target;
      if (!(script instanceof HTMLScriptElement) || script.type !== "module") return;
      const tries = Number(sessionStorage.getItem(KEY) ?? "0");
      if (tries < MAX_RETRIES) {
        sessionStorage.setItem(KEY, String(tries + 1));
        setTimeout(() => location.reload(), 500 * (tries + 1));
        return;
      }
      sessionStorage.removeItem(KEY);
      const root = document.getElementById("root");
      if (root) {
        root.setAttribute("role", "alert");
        root.textContent = "The IDE could not load its code. Check your connection, then reload the page.";
      }
    },
    // Error events of script elements do not bubble; capture sees them.
    true,
  );
})();
