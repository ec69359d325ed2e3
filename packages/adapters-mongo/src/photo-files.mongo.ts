import type { PhotoBytes, PhotoFile, PhotoUpload } from '@petstore/domain';
import { GridFSBucket, type Collection, type Db, type ObjectId } from 'mongodb';
import { classifyMongoError, guard } from './errors.js';
import { PHOTO_BUCKET } from './indexes.js';
import type { HeldAmong } from './photo-places.mongo.js';

/** GridFS files are named by their photo and width: the sweep can tell whose a stray chunk is. */
const fileId = (photoId: number, width: number): string => `${photoId}:${width}`;
const photoIdOf = (id: unknown): number | undefined => {
  const match = typeof id === 'string' ? /^([1-9][0-9]*):[0-9]+$/.exec(id) : null;
  return match === null ? undefined : Number(match[1]);
};

/**
 * The photos' bytes in the driver's GridFS (bucket `photos`: `photos.files` and `photos.chunks`),
 * one file per photo and width, `<photoId>:<width>`. Written through upload streams and read as
 * download streams, never whole in memory. Files whose photo has no held record (`heldAmong`) are
 * what an upload or a removal cut short leaves: `removeStray` removes them.
 */
export class PhotoFilesMongo {
  private readonly files: Collection<{ _id: string }>;
  private readonly chunks: Collection<{ files_id: string }>;
  private readonly bucket: GridFSBucket;

  constructor(
    db: Db,
    private readonly heldAmong: HeldAmong,
  ) {
    this.files = db.collection<{ _id: string }>(`${PHOTO_BUCKET}.files`);
    this.chunks = db.collection<{ files_id: string }>(`${PHOTO_BUCKET}.chunks`);
    this.bucket = new GridFSBucket(db, { bucketName: PHOTO_BUCKET });
  }

  /** Writes one file of an upload: chunks, then the file document. */
  async put(upload: PhotoUpload, file: PhotoFile, bytes: Uint8Array): Promise<void> {
    const id = fileId(upload.photoId, file.width);
    const write = () =>
      guard(
        () =>
          new Promise<void>((resolve, reject) => {
            const stream = this.bucket.openUploadStreamWithId(id as unknown as ObjectId, id, {
              metadata: { photoId: upload.photoId, petId: upload.petId, width: file.width },
            });
            stream.once('error', reject);
            stream.once('finish', () => resolve());
            stream.end(bytes);
          }),
        `GridFS upload to ${PHOTO_BUCKET}`,
      );
    try {
      await write();
    } catch (error) {
      // A file of this id written before (a put repeated after a lost answer): write it again from the start, once.
      if (classifyMongoError(error) !== 'duplicate_key') throw error;
      await this.remove([upload.photoId], [id]);
      await write();
    }
  }

  /**
   * A stream of the file's chunks, read as the answer is written (never the whole file in memory).
   * (GridFS takes any `_id`; its types name only ObjectId.)
   */
  open(photoId: number, width: number): PhotoBytes {
    return this.bucket.openDownloadStream(fileId(photoId, width) as unknown as ObjectId);
  }

  /**
   * Removes the file documents, then the chunks, of these photos (every width: ids by their
   * anchored prefix `<photoId>:`, which the `_id` and `files_id` indexes serve), or of exactly `ids`.
   * (One `$regex` per photo under `$or`, not regular expressions inside `$in`: mongo-java-server
   * cannot compare those.)
   */
  async remove(photoIds: readonly number[], ids?: readonly string[]): Promise<void> {
    if (photoIds.length === 0) return;
    const prefixes = photoIds.map((id) => ({ $regex: `^${id}:` }));
    const files = ids === undefined ? { $or: prefixes.map((_id) => ({ _id })) } : { _id: { $in: [...ids] } };
    const chunks =
      ids === undefined ? { $or: prefixes.map((files_id) => ({ files_id })) } : { files_id: { $in: [...ids] } };
    await guard(() => this.files.deleteMany(files), `delete on ${PHOTO_BUCKET}.files`);
    await guard(() => this.chunks.deleteMany(chunks), `delete on ${PHOTO_BUCKET}.chunks`);
  }

  /** Removes files and chunks whose photo has no held record (an upload or a removal cut short), and ids not ours at all; how many ids. */
  async removeStray(): Promise<number> {
    const fileIds = (await guard(() => this.files.distinct('_id'), `distinct on ${PHOTO_BUCKET}.files`)) as unknown[];
    const chunkIds = (await guard(
      () => this.chunks.distinct('files_id'),
      `distinct on ${PHOTO_BUCKET}.chunks`,
    )) as unknown[];
    const named = [...new Set([...fileIds, ...chunkIds])];
    const photoIds = [...new Set(named.map(photoIdOf).filter((id): id is number => id !== undefined))];
    const existing = await this.heldAmong(photoIds);
    const stray = named.filter((id) => {
      const photoId = photoIdOf(id);
      return photoId === undefined || !existing.has(photoId);
    });
    if (stray.length > 0) {
      await guard(() => this.files.deleteMany({ _id: { $in: stray as string[] } }), `delete on ${PHOTO_BUCKET}.files`);
      await guard(
        () => this.chunks.deleteMany({ files_id: { $in: stray as string[] } }),
        `delete on ${PHOTO_BUCKET}.chunks`,
      );
    }
    return stray.length;
  }
}
