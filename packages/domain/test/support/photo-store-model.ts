import type {
  PhotoBytes,
  PhotoFile,
  PhotoStore,
  PhotoSweep,
  PhotoUpload,
  PublishOutcome,
  StoredPhoto,
} from '../../src/index.js';
import { PHOTOS_PER_PET } from '../../src/index.js';

/** A place among a pet's photos: an upload under way (no `photo`), or a published photo. */
interface Place {
  readonly upload: PhotoUpload;
  readonly reserved: number;
  readonly files: Map<number, Uint8Array>;
  photo?: StoredPhoto;
  token?: string;
}

/**
 * A plain model of the `PhotoStore` port (docs/rules.md §13) for the domain's own tests (which may
 * not import an adapter): places per pet, published or not, a budget of bytes (`no_space`), creation
 * tokens (docs/rules.md §10). It keeps the port's rules by itself (the adapters prove theirs in the
 * contract suite) and records what the use case asked of it.
 */
export class PhotoStoreModel implements PhotoStore {
  /** The calls, by method name, in order. */
  readonly calls: string[] = [];
  /** The `totalBytes` of every reservation asked for. */
  readonly reservations: number[] = [];
  /** The uploads given up with `abandon`. */
  readonly abandoned: PhotoUpload[] = [];
  /** The cut-offs of the sweeps. */
  readonly sweeps: number[] = [];
  private lastId = 0;
  private used = 0;
  private readonly places = new Map<number, Place>();

  constructor(
    private readonly options: {
      readonly budget?: number;
      readonly sweepFinds?: PhotoSweep;
    } = {},
  ) {}

  async reserve(petId: number, totalBytes: number, now: number): Promise<PhotoUpload | 'full' | 'no_space'> {
    this.calls.push('reserve');
    this.reservations.push(totalBytes);
    if (this.of(petId).length >= PHOTOS_PER_PET) return 'full';
    if (this.used + totalBytes > (this.options.budget ?? Infinity)) return 'no_space';
    const upload = { petId, photoId: ++this.lastId, startedAt: now };
    this.used += totalBytes;
    this.places.set(upload.photoId, { upload, reserved: totalBytes, files: new Map() });
    return upload;
  }

  async putFile(upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void> {
    this.calls.push('putFile');
    const place = this.pending(upload);
    if (place === undefined) return;
    if (file.bytes !== bytes.length)
      throw new Error(`putFile: the file says ${file.bytes} bytes, ${bytes.length} given`);
    place.files.set(file.width, bytes);
    if ([...place.files.values()].reduce((n, b) => n + b.length, 0) > place.reserved)
      throw new Error('putFile: more bytes than reserved');
  }

  async publish(upload: PhotoUpload, photo: StoredPhoto, token?: string): Promise<PublishOutcome> {
    this.calls.push(token === undefined ? 'publish' : `publish(${token})`);
    const place = this.pending(upload);
    if (place === undefined) return false;
    if (photo.id !== upload.photoId || photo.petId !== upload.petId) throw new Error('publish: not the upload’s photo');
    if (photo.files.some((f) => place.files.get(f.width)?.length !== f.bytes))
      throw new Error('publish: before all files were put');
    if (token !== undefined) {
      const earlier = this.tokenPhoto(token);
      if (earlier !== undefined) {
        this.remove(upload.photoId);
        return { earlier };
      }
      place.token = token;
    }
    place.photo = photo;
    return true;
  }

  async findByCreationToken(token: string): Promise<StoredPhoto | undefined> {
    this.calls.push('findByCreationToken');
    return this.tokenPhoto(token);
  }

  async abandon(upload: PhotoUpload): Promise<void> {
    this.calls.push('abandon');
    this.abandoned.push(upload);
    if (this.pending(upload) !== undefined) this.remove(upload.photoId);
  }

  async list(petId: number): Promise<readonly StoredPhoto[]> {
    this.calls.push('list');
    return this.published().filter((p) => p.petId === petId);
  }

  async listOfPets(petIds: readonly number[]): Promise<readonly StoredPhoto[]> {
    this.calls.push('listOfPets');
    return this.published()
      .filter((p) => petIds.includes(p.petId))
      .sort((a, b) => a.petId - b.petId || a.id - b.id);
  }

  async find(petId: number, photoId: number): Promise<StoredPhoto | undefined> {
    this.calls.push('find');
    const photo = this.places.get(photoId)?.photo;
    return photo?.petId === petId ? photo : undefined;
  }

  async read(photoId: number, width: number): Promise<PhotoBytes | undefined> {
    this.calls.push('read');
    const place = this.places.get(photoId);
    return place?.photo === undefined ? undefined : place.files.get(width);
  }

  async delete(petId: number, photoId: number): Promise<boolean> {
    this.calls.push('delete');
    if (this.places.get(photoId)?.photo?.petId !== petId) return false;
    this.remove(photoId);
    return true;
  }

  async deleteAllOf(petId: number): Promise<number> {
    this.calls.push(`deleteAllOf(${petId})`);
    const mine = this.of(petId);
    for (const place of mine) this.remove(place.upload.photoId);
    return mine.filter((place) => place.photo !== undefined).length;
  }

  async pets(): Promise<readonly number[]> {
    this.calls.push('pets');
    return [...new Set(this.published().map((p) => p.petId))].sort((a, b) => a - b);
  }

  async sweep(startedBefore: number): Promise<PhotoSweep> {
    this.calls.push('sweep');
    this.sweeps.push(startedBefore);
    let uploads = 0;
    for (const place of [...this.places.values()]) {
      if (place.photo === undefined && place.upload.startedAt < startedBefore) {
        this.remove(place.upload.photoId);
        uploads++;
      }
    }
    return { uploads, files: this.options.sweepFinds?.files ?? 0 };
  }

  /** Bytes held: by published photos and uploads under way. */
  get usedBytes(): number {
    return this.used;
  }

  /** Places taken, published or not. */
  get placeCount(): number {
    return this.places.size;
  }

  private published(): StoredPhoto[] {
    return [...this.places.values()]
      .flatMap((place) => (place.photo === undefined ? [] : [place.photo]))
      .sort((a, b) => a.id - b.id);
  }

  private of(petId: number): Place[] {
    return [...this.places.values()].filter((place) => place.upload.petId === petId);
  }

  private tokenPhoto(token: string): StoredPhoto | undefined {
    return [...this.places.values()].find((place) => place.photo !== undefined && place.token === token)?.photo;
  }

  private pending(upload: PhotoUpload): Place | undefined {
    const place = this.places.get(upload.photoId);
    return place !== undefined && place.photo === undefined && place.upload.startedAt === upload.startedAt
      ? place
      : undefined;
  }

  private remove(photoId: number): void {
    const place = this.places.get(photoId);
    if (place === undefined) return;
    this.used -= place.reserved;
    this.places.delete(photoId);
  }
}
