import { useState } from "react";

export function App() {
  const [count, setCount] = useState(0);
  return (
    <main>
      <h1>Hello from your workspace</h1>
      <button type="button" onClick={() => setCount((n) => n + 1)}>
        Clicked {count} times
      </button>
      <p>
        Edit <code>src/App.tsx</code> and save: the preview updates without a reload.
      </p>
    </main>
  );
}
