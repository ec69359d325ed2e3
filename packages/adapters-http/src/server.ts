import { randomUUID } from 'node:crypto';
import { createServer, ServerResponse, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody } from './errors.js';
import { clientFaultLevel, silentLogger, type HttpLogger } from './logger.js';
import {
  HEADER_LIMIT_BYTES,
  HEADERS_TIMEOUT_MS,
  HEADERS_TOO_LARGE_MESSAGE,
  REQUEST_TIMEOUT_MS,
  requestTimeoutMessage,
  UPLOAD_BODY_TIMEOUT_MS,
  UPLOAD_STALL_TIMEOUT_MS,
  uploadTimeoutMessage,
} from './limits.js';
import { BodyDeadlines } from './body-deadlines.js';

/**
 * Requests that Node's parser refuses before the app sees them (a control character or line
 * break in a header, headers over the size limit, a malformed request line, a request not
 * complete in time…) still get a request id of their own and the `Error` body of docs/rules.md §3:
 * 431 `headers_too_large`, 408 `request_timeout`, 413 for chunk extensions, else 400. Nothing of
 * the request is echoed. Node's own answer has neither. As Node does, nothing is written when a
 * response is already under way (then the connection is only closed).
 *
 * Each is logged once, as the client's fault (`clientFaultLevel`: `warn`, or `info` for a client
 * that went away), with the request id of the answer and the parser's code; never at `error`,
 * which is for the service's own faults. The same failure reaching the app is not logged again.
 */
const clientErrorAnswer =
  (
    headersTimeoutMs: number,
    requestTimeoutMs: number,
    logger: HttpLogger,
    inFlightOn: (socket: Duplex) => ServerResponse | undefined,
  ) =>
  (error: NodeJS.ErrnoException, socket: Duplex, timeoutMessage?: string): void => {
    // A body deadline's cut (`BodyDeadlines`) comes back here through the socket's own error handler,
    // once it has been answered and logged.
    if (loggedClientErrors.has(error)) return;
    const inFlight = inFlightOn(socket);
    let answered: { requestId: string; status: number } | undefined;
    if (error.code !== 'ECONNRESET' && socket.writable && inFlight?.headersSent !== true) {
      const [status, reason, body] =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [
              408,
              'Request Timeout',
              errorBody('request_timeout', timeoutMessage ?? requestTimeoutMessage(headersTimeoutMs, requestTimeoutMs)),
            ]
          : error.code === 'HPE_HEADER_OVERFLOW'
            ? [431, 'Request Header Fields Too Large', errorBody('headers_too_large', HEADERS_TOO_LARGE_MESSAGE)]
            : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
              ? [413, 'Payload Too Large', errorBody('payload_too_large', 'the chunk extensions are too large')]
              : [
                  400,
                  'Bad Request',
                  errorBody(
                    'validation_failed',
                    'the request is not valid HTTP/1.1: check the request line and the headers',
                  ),
                ];
      // A failure in a request's body: the app has given that request its id already; keep it.
      const known = inFlight?.getHeader('x-request-id');
      const requestId = typeof known === 'string' ? known : randomUUID();
      socket.write(
        `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nX-Request-Id: ${requestId}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      answered = { requestId, status };
    }
    logger[clientFaultLevel(error) ?? 'warn']({ ...answered, code: error.code ?? null }, 'client error');
    loggedClientErrors.add(error);
    socket.destroy(error);
  };

/**
 * The responses under way on each connection, oldest first, as the request listener sees them
 * (Node writes a connection's answers in the order of its requests: the first not finished is the
 * one on the wire). `current` is what the `clientError` answer must not write over. Finished ones
 * (`writableFinished`) are dropped as the list is read: no listener per response.
 */
class ResponsesUnderWay {
  private readonly bySocket = new WeakMap<Duplex, ServerResponse[]>();

  add(socket: Duplex, res: ServerResponse): void {
    const list = this.bySocket.get(socket);
    if (list === undefined) this.bySocket.set(socket, [res]);
    else {
      dropFinished(list);
      list.push(res);
    }
  }

  current(socket: Duplex): ServerResponse | undefined {
    const list = this.bySocket.get(socket);
    if (list === undefined) return undefined;
    dropFinished(list);
    return list[0];
  }
}

const dropFinished = (list: ServerResponse[]): void => {
  while (list.length > 0 && list[0]!.writableFinished) list.shift();
};

/** Client errors already logged by the `clientError` handler: the app's error listener skips them. */
export const loggedClientErrors = new WeakSet<object>();

export interface ListenOptions {
  readonly port: number;
  readonly host: string;
  /** Whole request headers must arrive within this many ms (default `HEADERS_TIMEOUT_MS`, docs/rules.md §6). */
  readonly headersTimeoutMs?: number;
  /** A request's body must arrive within this many ms of its headers (default `REQUEST_TIMEOUT_MS`, 30 s). */
  readonly requestTimeoutMs?: number;
  /** A photo upload's body (one the upload admission admitted) may take this many ms (default `UPLOAD_BODY_TIMEOUT_MS`, 120 s)… */
  readonly uploadBodyTimeoutMs?: number;
  /** …with no pause between its bytes as long as this (default `UPLOAD_STALL_TIMEOUT_MS`, 10 s). */
  readonly uploadStallTimeoutMs?: number;
  /** Where requests that Node refuses before the app sees them are logged (`clientError`); none when absent. */
  readonly logger?: HttpLogger;
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

/**
 * Starts `server` listening on `host:port` (port 0: any free one) and answers the port it got and
 * the URL a client on this machine reaches it by (a wildcard host is reached on 127.0.0.1).
 */
export const bindServer = async (
  server: Server,
  requestedPort: number,
  hostName: string,
): Promise<{ port: number; url: string }> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requestedPort, hostName, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = hostName.includes(':') ? `[${hostName}]` : hostName;
  return { port, url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}` };
};

/**
 * Serves a Koa app over HTTP/1.1 with the timeouts that keep slow clients from holding sockets
 * (docs/rules.md §6): the headers within `headersTimeoutMs` (Node's own check), then the body within
 * `requestTimeoutMs`, or an upload's body within `uploadBodyTimeoutMs` with no pause of
 * `uploadStallTimeoutMs` (`BodyDeadlines`: Node's `requestTimeout` is one number for the whole
 * server, so it is only the backstop here, past the longest of them).
 */
export const listen = async (app: { callback(): RequestListener }, options: ListenOptions): Promise<RunningServer> => {
  const appHandler = app.callback();
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const upload = {
    totalMs: options.uploadBodyTimeoutMs ?? UPLOAD_BODY_TIMEOUT_MS,
    stallMs: options.uploadStallTimeoutMs ?? UPLOAD_STALL_TIMEOUT_MS,
  };
  const underWay = new ResponsesUnderWay();
  const answerClientError = clientErrorAnswer(
    headersTimeout,
    requestTimeout,
    options.logger ?? silentLogger,
    (socket) => underWay.current(socket),
  );
  // A body past its deadline is cut as Node cuts a request past its `requestTimeout`: 408 when no
  // answer has started, then the connection closes (the app's reader then fails, and its upload's place is freed).
  const deadlines = new BodyDeadlines({ request: { totalMs: requestTimeout }, upload }, (req, uploading) => {
    const timeout = Object.assign(new Error('request body timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    answerClientError(
      timeout,
      req.socket,
      uploading ? uploadTimeoutMessage(upload.totalMs, upload.stallMs) : undefined,
    );
  });
  const handler: RequestListener = (req, res) => {
    underWay.add(req.socket, res);
    deadlines.watch(req, res);
    return appHandler(req, res);
  };
  const server = createServer(
    {
      headersTimeout,
      // The backstop: headers, then the longest body, then a check's delay (0: none, as asked).
      requestTimeout:
        requestTimeout === 0
          ? 0
          : headersTimeout + Math.max(requestTimeout, upload.totalMs) + 2 * deadlines.checkEveryMs,
      maxHeaderSize: HEADER_LIMIT_BYTES,
      // Check for expired header/request deadlines every second, not every 30 s.
      connectionsCheckingInterval: 1_000,
      keepAliveTimeout: 5_000,
      // A request without Host reaches the app, which answers it 400 with an `Error` body
      // (Node's own answer has no body and no request id).
      requireHostHeader: false,
    },
    handler,
  );
  // No header is dropped silently (Node keeps only the first 1,000 by default, Host included):
  // the header size limit (`HEADER_LIMIT_BYTES`, 431) already bounds what a request can carry.
  server.maxHeadersCount = 0;
  server.on('clientError', answerClientError);
  server.on('close', () => deadlines.stop());
  // `Expect: 100-continue` goes to the app like any request (Node would answer 100 at once, before
  // the credential or the rate limit is checked); the body reader sends the 100 when it starts.
  server.on('checkContinue', handler);
  // CONNECT opens no tunnel here: it is answered like any other request (405 with `Allow` on a
  // known path, 404 elsewhere), then the connection closes. Without this, Node drops the socket.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const res = new ServerResponse(req);
    res.setHeader('Connection', 'close');
    res.assignSocket(socket);
    res.on('finish', () => {
      res.detachSocket(socket);
      socket.end();
    });
    handler(req, res);
  });
  const { port, url } = await bindServer(server, options.port, options.host);
  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    url,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        // Answers finished after the close leave keep-alive connections idle: close those too,
        // instead of waiting for the keep-alive timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        sweep.unref();
        server.close(() => {
          clearTimeout(timer);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
};
