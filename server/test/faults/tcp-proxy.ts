import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback to one target (a Postgres here), which a test can cut: every open connection is
 * destroyed and new ones are dropped as soon as they arrive, until it is restored. Or stall: connections stay
 * open (and new ones are accepted) but no byte goes through either way, as when the target hangs, until
 * restored.
 */
export interface TcpProxy {
  port: number;
  /** Connections accepted while cut (and dropped at once). */
  refused: number;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const state = { cut: false, stalled: false, refused: 0 };
  const waiting = new Set<Socket>();
  const server = createServer((client) => {
    if (state.cut) {
      state.refused += 1;
      client.destroy();
      return;
    }
    if (state.stalled) {
      client.pause();
      waiting.add(client);
      client.on('error', () => waiting.delete(client)).on('close', () => waiting.delete(client));
      return;
    }
    forward(client);
  });
  const forward = (client: Socket) => {
    const upstream = createConnection(target);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get refused() {
      return state.refused;
    },
    cut() {
      state.cut = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    stall() {
      state.stalled = true;
      for (const socket of open) socket.pause();
    },
    restore() {
      state.cut = false;
      if (!state.stalled) return;
      state.stalled = false;
      for (const socket of open) socket.resume();
      for (const client of waiting) {
        client.resume();
        forward(client);
      }
      waiting.clear();
    },
    close: async () => {
      for (const socket of [...open, ...waiting]) socket.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
