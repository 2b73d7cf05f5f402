type Teardown = () => Promise<void>;

/**
 * A vitest global setup that runs once a test run although several projects list it (vitest runs each
 * project's global setups, in the same process): later calls share the first one's result (what it put in
 * `process.env`), and it is undone by the last teardown. The state is on `globalThis` because each project
 * loads the setup module anew.
 */
export function oncePerRun(name: string, make: () => Promise<Teardown>): () => Promise<Teardown> {
  return async () => {
    const key = Symbol.for(`tessera.test.global-setup.${name}`);
    const store = globalThis as { [key]?: { users: number; ready: Promise<Teardown> } };
    const shared = store[key] ?? { users: 0, ready: make() };
    store[key] = shared;
    shared.users += 1;
    const undo = await shared.ready;
    return async () => {
      shared.users -= 1;
      if (shared.users > 0) return;
      store[key] = undefined;
      await undo();
    };
  };
}
