import { createHmac } from 'node:crypto';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { DeliveryOutcome, WebhookRequest, WebhookResult, WebhookSender } from '@petstore/domain';
import { WEBHOOK_MAX_ANSWER_BYTES, WEBHOOK_SECRET_PREFIX, WEBHOOK_TIMEOUT_MS } from '@petstore/domain';
import type { CheckedTarget, WebhookUrlPolicy } from './webhook-url-policy.js';

export interface HttpWebhookSenderOptions {
  /** The URL rules, applied again at every attempt (the host name resolved again). */
  readonly policy: WebhookUrlPolicy;
  /** `User-Agent` of every delivery: `petstore-webhooks/<version>`. */
  readonly userAgent: string;
  /** The whole exchange's limit, from the start of the attempt: resolving, connecting, sending, the answer's headers and body. Default `WEBHOOK_TIMEOUT_MS`. */
  readonly timeoutMs?: number;
  /** At most this much of an answer's body is read (and dropped); then the connection is closed. Default `WEBHOOK_MAX_ANSWER_BYTES`. */
  readonly maxAnswerBytes?: number;
  /** Epoch ms, for `durationMs`. Default `Date.now`. */
  readonly now?: () => number;
}

/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's decoded bytes. */
const signature = (secret: string, signed: string): string => {
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
  return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
};

/** A few words on a failed connection, from the error's code only: Node's messages may name the address. */
const connectionError = (error: unknown): string => {
  const raw = (error as { code?: unknown }).code;
  const code = typeof raw === 'string' && /^[A-Z0-9_]{1,40}$/.test(raw) ? raw : undefined;
  if ((error as { message?: unknown }).message === 'socket hang up')
    return 'the connection was closed before an answer';
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host is unreachable';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case undefined:
      return 'the connection failed';
    default:
      if (code.startsWith('HPE_')) return `the answer was not valid HTTP (${code})`;
      if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
        return `the TLS handshake failed (${code})`;
      return `the connection failed (${code})`;
  }
};

/**
 * The webhook sender of docs/rules.md §15 on `node:http`/`node:https`: every attempt applies the URL
 * rules again (`refused`, nothing sent, when they refuse it), then `POST`s the signed event to the
 * address that was checked: the request's `lookup` answers only that address (and an IP literal is
 * connected to as written), so no second resolution can lead elsewhere; the name stays in `Host` and
 * in TLS's SNI and certificate check. No connection is ever reused (`agent: false`: a new socket, closed
 * after the attempt), so none can carry a request to an address another attempt checked. Redirects
 * are not followed. One deadline covers the whole exchange. Never throws.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly policy: WebhookUrlPolicy;
  private readonly userAgent: string;
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly now: () => number;

  constructor(options: HttpWebhookSenderOptions) {
    this.policy = options.policy;
    this.userAgent = options.userAgent;
    this.timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.maxAnswerBytes = options.maxAnswerBytes ?? WEBHOOK_MAX_ANSWER_BYTES;
    this.now = options.now ?? Date.now;
  }

  async send(request: WebhookRequest): Promise<WebhookResult> {
    const started = this.now();
    const result = (outcome: DeliveryOutcome, status: number | null, error?: string): WebhookResult => ({
      outcome,
      status,
      durationMs: Math.max(0, this.now() - started),
      ...(error === undefined ? {} : { error }),
    });
    try {
      return await new Promise<WebhookResult>((settle) => {
        let done = false;
        let status: number | null = null;
        let req: ClientRequest | undefined;
        const finish = (outcome: DeliveryOutcome, error?: string): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          req?.destroy();
          settle(result(outcome, status, error));
        };
        const timer = setTimeout(
          () =>
            finish(
              'timeout',
              req === undefined
                ? `the host name was not resolved within ${this.timeoutMs} ms`
                : `no complete answer within ${this.timeoutMs} ms`,
            ),
          this.timeoutMs,
        );
        this.policy.target(request.url).then(
          (target) => {
            if (done) return;
            if (target.kind !== 'allowed')
              return target.kind === 'refused'
                ? finish('refused', target.reason)
                : finish('unreachable', 'the host name does not resolve');
            try {
              req = this.post(target, request);
            } catch {
              return finish('unreachable', 'the request could not be sent');
            }
            req.on('error', (error) => finish('unreachable', connectionError(error)));
            req.on('response', (res: IncomingMessage) => {
              status = res.statusCode ?? null;
              const outcome = (): void => {
                if (status !== null && status >= 200 && status < 300) return finish('delivered');
                if (status !== null && status >= 300 && status < 400)
                  return finish('failed', `a redirect (${status}), not followed`);
                finish('failed', `the receiver answered ${status ?? 'without a status'}`);
              };
              let read = 0;
              res.on('data', (chunk: Buffer) => {
                read += chunk.length;
                // Enough read: the rest is never asked for (finish closes the connection).
                if (read >= this.maxAnswerBytes) outcome();
              });
              res.on('end', outcome);
              res.on('error', () => finish('unreachable', 'the connection broke during the answer'));
              res.on('close', () => finish('unreachable', 'the connection broke during the answer'));
            });
          },
          () => finish('unreachable', 'the host name could not be checked'),
        );
      });
    } catch {
      return result('unreachable', null, 'the request could not be sent');
    }
  }

  /** Starts the `POST` to the checked address. */
  private post(target: CheckedTarget, request: WebhookRequest): ClientRequest {
    const { url, hostname, address, family } = target;
    const signed = `${request.webhookId}.${request.timestamp}.${request.body}`;
    const body = Buffer.from(request.body, 'utf8');
    // The address that was checked, whatever name or options the connection asks with.
    const lookup = (
      _hostname: string,
      options: LookupOptions,
      callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ): void => {
      if (options.all === true) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const https = url.protocol === 'https:';
    const options: RequestOptions & { servername?: string } = {
      method: 'POST',
      hostname,
      port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      agent: false,
      lookup,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'webhook-id': request.webhookId,
        'webhook-timestamp': String(request.timestamp),
        'webhook-signature': request.secrets.map((secret) => signature(secret, signed)).join(' '),
        'User-Agent': this.userAgent,
      },
      // TLS names the host (SNI, and the certificate is checked against it), never the address.
      ...(https && isIP(hostname) === 0 ? { servername: hostname } : {}),
    };
    const req = (https ? httpsRequest : httpRequest)(options);
    req.end(body);
    return req;
  }
}
