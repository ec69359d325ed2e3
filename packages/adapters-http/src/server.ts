import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListenOptions {
  readonly port: number;
  readonly host: string;
  /** Whole request headers must arrive within this many ms (CONTRACT.md §6: 10 s). */
  readonly headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this many ms (30 s). */
  readonly requestTimeoutMs?: number;
}

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /** `http://host:port`, for logs and tests. */
  readonly url: string;
  /**
   * Stops accepting, lets the requests in flight finish (at most `graceMs`, then cuts what is
   * left), and resolves once every connection is closed.
   */
  close(graceMs?: number): Promise<void>;
}

/** Serves a Koa app over HTTP/1.1 with the timeouts that keep slow clients from holding sockets. */
export const listen = async (app: { callback(): RequestListener }, options: ListenOptions): Promise<RunningServer> => {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      // Check for expired header/request deadlines every second, not every 30 s.
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
    },
    app.callback(),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
};
