import type { DeliveryOutcome } from '../webhooks/webhook.js';

/** One delivery attempt, as the dispatcher asks for it (docs/rules.md §15, "Delivery"). */
export interface WebhookRequest {
  readonly url: string;
  /** The event's id: `webhook-id`, the same on every attempt. */
  readonly webhookId: string;
  /** Unix seconds of the attempt: `webhook-timestamp`. */
  readonly timestamp: number;
  /** The event's JSON: the body, and what is signed. */
  readonly body: string;
  /** The secrets that sign it (`whsec_…`), the current one first: one `v1,` signature each. */
  readonly secrets: readonly string[];
}

/** What an attempt came to. */
export interface WebhookResult {
  readonly outcome: DeliveryOutcome;
  /** The receiver's status; null when none came. */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it failed, in a few words: never the answer's body nor a secret. */
  readonly error?: string;
}

/**
 * Sends one signed delivery (Standard Webhooks 1.0): `POST` the body with `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body" keyed
 * with the secret's decoded bytes>`, space-separated when several); applies the URL rules of
 * `WebhookTargets` again, resolving the host and connecting to the address it checked (`refused`,
 * nothing sent, when the check fails); follows no redirect; a 2xx within `WEBHOOK_TIMEOUT_MS` is
 * `delivered`; reads at most `WEBHOOK_MAX_ANSWER_BYTES` of the answer. Never throws.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
}

/**
 * The URL rules of docs/rules.md §15: an absolute `https` URL (or `http` for an allowed host) without
 * user info, at most `WEBHOOK_URL_MAX_LENGTH` characters, whose host is not and does not resolve to a
 * loopback, private, link-local, multicast or unspecified address (IPv4 and IPv6, IPv4-mapped
 * addresses too), unless its `host[:port]` is allowed by the settings.
 */
export interface WebhookTargets {
  /** `undefined` when `url` may be delivered to; else why not, as a sentence for a 400's message (never echoing the URL whole). */
  check(url: string): Promise<string | undefined>;
}
