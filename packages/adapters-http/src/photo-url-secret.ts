import type { Caller, Conflict, Forbidden, Result } from '@petstore/domain';
import type { ApiRouter } from './api-router.js';
import { fromDomain } from './route-helpers.js';

/** What the rotation route needs of the signed photo URLs (`PhotoUrls.rotate`). */
export interface PhotoUrlSecretRotation {
  rotate(caller: Caller | undefined): Promise<Result<void, Forbidden | Conflict>>;
}

/**
 * `POST /v1/admin/photo-url-secret/rotate` (docs/rules.md §16, admin keys): a new signing secret,
 * so every photo URL made before stops working; 204. A client key → 403 before anything; a secret
 * given by the setting → 409. The body is not read.
 */
export const addPhotoUrlSecretRoute = (routes: ApiRouter, urls: PhotoUrlSecretRotation): void => {
  routes.post({ name: 'rotatePhotoUrlSecret', path: '/v1/admin/photo-url-secret/rotate' }, async (ctx) => {
    const rotated = await urls.rotate(ctx.state.caller);
    if (!rotated.ok) throw fromDomain(rotated.error);
    ctx.status = 204;
  });
};
