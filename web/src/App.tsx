export function App() {
  return (
    <main>
      <h1>Tessera</h1>
      <p>The dashboard is on its way. The API is live at /v1.</p>
    </main>
  );
}
