import type { Middleware } from 'koa';
import type { Unauthorized } from '@petstore/domain';
import { fail, ok, signedPhotoSubject } from '@petstore/domain';
import type { AppState } from '../state.js';

/** What the gate needs of the signed photo URLs: checking one (`PhotoUrls.verify`). */
export interface PhotoSignatures {
  verify(petId: string, photoId: string, signature: string): Promise<boolean>;
}

const wrongSignature: Unauthorized = {
  code: 'unauthorized',
  // No key was sent: the challenge stays the plain one of a missing key (docs/rules.md §4).
  reason: 'missing',
  message:
    'the signature (sig) of this photo URL is not valid: it belongs to another photo, or was made before the signing secret was rotated; get a new URL, or send your API key as "Authorization: Bearer <API_KEY>"',
};

/**
 * The step for a photo read by its signed URL (docs/rules.md §16), first on the routes registered
 * with `signedUrl` (`ApiRouter`), before the gate and its rate limit: a request without a usable key and with one valid `sig`
 * is let through as the client address's signed reads (`p:<address>`, the business plan's
 * numbers, apart from its other keyless requests); one with a `sig` that is not valid is refused
 * 401 by `requireKey`, whatever the `sig` looks like. A request with a key is the key's, as ever.
 */
export const photoSignature = (signatures: PhotoSignatures): Middleware<AppState> =>
  async function photoSignature(ctx, next) {
    const authentication = ctx.state.authentication;
    if (authentication === undefined || authentication.ok || authentication.error.reason !== 'missing') return next();
    const given = ctx.querystring === '' ? [] : new URLSearchParams(ctx.querystring).getAll('sig');
    if (given.length === 0) return next();
    const { petId = '', photoId = '' } = (ctx.params ?? {}) as Partial<Record<'petId' | 'photoId', string>>;
    if (given.length === 1 && (await signatures.verify(petId, photoId, given[0]!))) {
      const subject = signedPhotoSubject(ctx.ip);
      ctx.state.authentication = ok(subject);
      ctx.state.subject = subject;
      ctx.state.subjectTag = subject.id;
      ctx.state.signedUrl = true;
    } else ctx.state.authentication = fail(wrongSignature);
    return next();
  };
