/**
 * Signed photo URLs (docs/rules.md §16): the rules, with no store and no cache. A photo's URL
 * carries an HMAC-SHA256 of its pet's and its own id under the service's signing secret; the
 * signature is the credential of a keyless GET or HEAD, for that one photo only.
 */
import type { Subject } from '../auth/api-key.js';
import type { Digests } from '../ports/digests.port.js';
import type { Random } from '../ports/random.port.js';
import { PLAN_QUOTAS } from '../quota/plans.js';
import { base64UrlOfBytes } from '../text/base64url.js';

/** Bytes of a signing secret the service makes: 256 bits. */
export const PHOTO_URL_SECRET_BYTES = 32;
/** Characters of a signature: the 32 bytes of an HMAC-SHA256 in base64url, unpadded. */
export const PHOTO_SIGNATURE_LENGTH = 43;

/** A new signing secret: base64url of `PHOTO_URL_SECRET_BYTES` bytes from `random` (43 characters). */
export const generatePhotoUrlSecret = (random: Random): string => {
  const bytes = random.bytes(PHOTO_URL_SECRET_BYTES);
  if (bytes.length !== PHOTO_URL_SECRET_BYTES)
    throw new Error(`the random source gave ${bytes.length} bytes instead of ${PHOTO_URL_SECRET_BYTES}`);
  return base64UrlOfBytes(bytes);
};

/**
 * What is signed: the ids as they stand in the URL's path, behind a label naming the purpose and
 * its version, so that a MAC made for anything else under the same secret never passes for one.
 */
export const photoSignatureMessage = (petId: string, photoId: string): string => `photo:v1:${petId}:${photoId}`;

/** The signature of the photo `photoId` of the pet `petId` under `secret`: base64url of the full 256-bit MAC. */
export const signPhoto = (digests: Digests, secret: string, petId: string, photoId: string): string =>
  base64UrlOfBytes(digests.hmacSha256(secret, photoSignatureMessage(petId, photoId)));

/**
 * Whether `signature` is the photo's under `secret`, compared in constant time; a signature of
 * another length (empty, huge) is refused without computing anything: its length is no secret.
 */
export const signatureHolds = (
  digests: Digests,
  secret: string,
  petId: string,
  photoId: string,
  signature: string,
): boolean =>
  signature.length === PHOTO_SIGNATURE_LENGTH && digests.equal(signPhoto(digests, secret, petId, photoId), signature);

/** A photo's signed URL: `<base>/v1/pets/{petId}/photos/{photoId}?sig=<signature>` (`base` an origin, or empty). */
export const signedPhotoUrl = (base: string, petId: number, photoId: number, signature: string): string =>
  `${base}/v1/pets/${petId}/photos/${photoId}?sig=${signature}`;

/**
 * Who a keyless request by a signed URL is, for the rate limiter (docs/rules.md §16): its client
 * address, with the business plan's numbers, apart from the address's other keyless requests (`a:`).
 */
export const signedPhotoSubject = (address: string): Subject => ({
  id: `p:${address}`,
  plan: 'business',
  quota: PLAN_QUOTAS.business,
});
