import type { Photo, PhotoUrlSecretStore } from '../../src/index.js';

/** A stored JPEG photo of `petId`, 300 high, `width` wide: what `PhotoUrls.links` is given. */
export const photoOf = (petId: number, id: number, width = 500): Photo => ({
  id,
  petId,
  contentType: 'image/jpeg',
  width,
  height: 300,
  bytes: 1000,
  createdAt: '2027-01-01T00:00:00.000Z',
});

/** The `sig` of a photo URL (absolute or not). */
export const signatureOf = (url: string): string => new URL(url, 'http://x').searchParams.get('sig') ?? '';

/** A secret store in memory that counts its calls (one storage, as a database shared by several `PhotoUrls`). */
export class CountingStore implements PhotoUrlSecretStore {
  secret: string | undefined;
  reads = 0;
  creates = 0;
  async read(): Promise<string | undefined> {
    this.reads++;
    return this.secret;
  }
  async create(secret: string): Promise<string> {
    this.creates++;
    this.secret ??= secret;
    return this.secret;
  }
  async rotate(secret: string): Promise<void> {
    this.secret = secret;
  }
}
