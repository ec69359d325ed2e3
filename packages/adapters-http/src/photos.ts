import { Readable } from 'node:stream';
import type { Photo, PhotoBytes, PhotoLibrary } from '@petstore/domain';
import { entityTag, ifNoneMatchHolds, PHOTO_BODY_LIMIT_BYTES } from '@petstore/domain';
import { HttpError } from './errors.js';
import { answerJson } from './answer.js';
import { readRawBody } from './body.js';
import type { ApiRouter, RouteStep } from './api-router.js';
import { answerCreate, callerOf, found, fromDomain } from './route-helpers.js';

const PHOTOS_PATH = '/v1/pets/:petId/photos';
const PHOTO_PATH = `${PHOTOS_PATH}/:photoId` as const;

/** `Cache-Control` of a photo's bytes: a browser may keep them a day (the bytes of an id never change; a 304 costs one request). */
export const PHOTO_CACHE_CONTROL = 'private, max-age=86400';
/**
 * The same for a keyless read by a signed URL (docs/rules.md §16): shared caches may keep it too, and
 * pages of other origins may show it (`Cross-Origin-Resource-Policy`), as a plain `<img>` does.
 */
const SIGNED_PHOTO_HEADERS = {
  'Cache-Control': 'public, max-age=86400',
  'Cross-Origin-Resource-Policy': 'cross-origin',
} as const;

/** A `Photo` as JSON, fields in the order of the schema. */
const serializePhoto = (photo: Photo): string =>
  JSON.stringify({
    id: photo.id,
    petId: photo.petId,
    contentType: photo.contentType,
    width: photo.width,
    height: photo.height,
    bytes: photo.bytes,
    createdAt: photo.createdAt,
  });

/** Where a photo's bytes are (an upload's `Location`). */
const photoLocation = (photo: Photo): string => `/v1/pets/${photo.petId}/photos/${photo.id}`;

/** Bytes Koa can send: a Buffer view of bytes held in memory, or a stream of the chunks. */
const body = (bytes: PhotoBytes): Buffer | Readable =>
  bytes instanceof Uint8Array
    ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    : bytes instanceof Readable
      ? bytes
      : Readable.from(bytes, { objectMode: false });

/**
 * The four operations of docs/rules.md §13 under `/v1/pets/{petId}/photos`. The rules and their order are the domain's (`PhotoLibrary`); this file
 * reads the request and writes the answer: the upload's body through the shared reader (10 MiB, the
 * same bytes the idempotency fingerprint hashed), a photo's bytes with their entity tag.
 */
export const addPhotoRoutes = (
  routes: ApiRouter,
  photos: PhotoLibrary,
  admitUpload: RouteStep<typeof PHOTOS_PATH>,
): void => {
  routes.get({ name: 'listPetPhotos', path: PHOTOS_PATH, publishable: true }, async (ctx) => {
    const result = await photos.list(ctx.params.petId);
    if (!result.ok) throw fromDomain(result.error);
    answerJson(ctx, `[${result.value.map(serializePhoto).join(',')}]`);
  });

  // A client key → 403 before anything is looked up (docs/rules.md §4, §13), its Idempotency-Key included:
  // this step runs before the key's (`Routes.create`), and a 403 is never kept (§10).
  const onlyAdmins: RouteStep<typeof PHOTOS_PATH> = (ctx, next) => {
    const allowed = photos.authorizeUpload(ctx.state.caller);
    if (!allowed.ok) throw fromDomain(allowed.error);
    return next();
  };
  // Then the upload admission (docs/rules.md §13): past its bounds, 503 at once, the body unread and the key free.
  // Its body may be 10 MiB (docs/rules.md §13), the only route over 1 MiB.
  const upload = {
    name: 'uploadPetPhoto',
    path: PHOTOS_PATH,
    bodyLimit: PHOTO_BODY_LIMIT_BYTES,
    idempotentCreate: true,
  } as const;
  routes.post(upload, onlyAdmins, admitUpload, async (ctx) => {
    // Under an Idempotency-Key (docs/rules.md §10): the photo an earlier attempt published is answered as a replay, never uploaded again.
    await answerCreate(ctx, {
      earlier: async (creation) => found(await photos.photoCreatedUnder(creation)),
      create: (creation) =>
        photos.upload(
          callerOf(ctx),
          ctx.params.petId,
          ctx.req.headers['content-type'],
          () => readRawBody(ctx),
          creation,
        ),
      answer: (photo) => ({ location: photoLocation(photo), body: serializePhoto(photo) }),
    });
  });

  // GET also answers HEAD (the router registers both): the same headers, no bytes read. Its signed
  // URL reads it without a key (docs/rules.md §16; the gate's `photoSignature` checks the `sig`).
  routes.get({ name: 'getPetPhoto', path: PHOTO_PATH, publishable: true, signedUrl: true }, async (ctx) => {
    const { petId, photoId } = ctx.params;
    const query = ctx.querystring;
    const result = await photos.get(petId, photoId, query === '' ? [] : new URLSearchParams(query).getAll('width'));
    if (!result.ok) throw fromDomain(result.error);
    const { photo, file } = result.value;
    // The file's tag is its SHA-256: the same bytes always have the same tag, and other bytes another.
    const fresh = !ifNoneMatchHolds(ctx.req.headers['if-none-match'], file.sha256);
    // The bytes are opened only for a GET that sends them (a 304 and a HEAD read none).
    const bytes = fresh || ctx.method === 'HEAD' ? undefined : await result.value.bytes();
    if (!fresh && ctx.method !== 'HEAD' && bytes === undefined)
      throw new HttpError('not_found', `this pet has no photo with id ${photo.id}`);
    ctx.set('ETag', entityTag(file.sha256));
    if (ctx.state.signedUrl === true) ctx.set(SIGNED_PHOTO_HEADERS);
    else ctx.set('Cache-Control', PHOTO_CACHE_CONTROL);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = photo.contentType;
    if (bytes === undefined) {
      // HEAD: the headers of the GET, no body.
      ctx.status = 200;
      ctx.length = file.bytes;
      return;
    }
    ctx.body = body(bytes);
    ctx.length = file.bytes;
  });

  routes.delete({ name: 'deletePetPhoto', path: PHOTO_PATH }, async (ctx) => {
    const { petId, photoId } = ctx.params;
    const result = await photos.delete(callerOf(ctx), petId, photoId);
    if (!result.ok) throw fromDomain(result.error);
    ctx.status = 204;
  });
};
