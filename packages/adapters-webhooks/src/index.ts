// Public API of @petstore/adapters-webhooks: the domain's WebhookTargets and WebhookSender ports on node:http(s).
export { HttpWebhookSender, type HttpWebhookSenderOptions } from './http-webhook-sender.js';
export { parseAllowHosts, WebhookUrlPolicy, type WebhookUrlPolicyOptions } from './webhook-url-policy.js';
