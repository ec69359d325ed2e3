import type { PhotoUrlSecretStore } from '@petstore/domain';
import type { Collection, Db } from 'mongodb';
import { classifyMongoError, guard, upsertWithRetry } from './errors.js';

/** The collection of the service's own settings kept in the database: one document per setting. */
export const SETTINGS_COLLECTION = 'settings';
/** The signing secret's document: `{ _id: 'photo-url-secret', secret }`. */
const SECRET_ID = 'photo-url-secret';

interface SecretDocument {
  _id: string;
  secret: string;
}

/**
 * The signing secret of the photo URLs (docs/rules.md §16), one per database: every process on it
 * signs alike. Made by a unique insert (`_id`), so that of processes starting together the losers
 * read the winner's; replaced in place by a rotation. Nothing is cached here (`PhotoUrls` does it).
 */
export class PhotoUrlSecretStoreMongo implements PhotoUrlSecretStore {
  private readonly settings: Collection<SecretDocument>;

  constructor(db: Db) {
    this.settings = db.collection<SecretDocument>(SETTINGS_COLLECTION);
  }

  async read(): Promise<string | undefined> {
    const found = await guard(
      () => this.settings.findOne({ _id: SECRET_ID }, { projection: { secret: 1 } }),
      `find on ${SETTINGS_COLLECTION}`,
    );
    return typeof found?.secret === 'string' ? found.secret : undefined;
  }

  async create(secret: string): Promise<string> {
    const won = await guard(async () => {
      try {
        await this.settings.insertOne({ _id: SECRET_ID, secret });
        return true;
      } catch (error) {
        if (classifyMongoError(error) === 'duplicate_key') return false;
        throw error;
      }
    }, `insert on ${SETTINGS_COLLECTION}`);
    if (won) return secret;
    const kept = await this.read();
    if (kept === undefined) throw new Error('the photo URL secret was there at its insert and gone at its read');
    return kept;
  }

  async rotate(secret: string): Promise<void> {
    await upsertWithRetry(
      () => this.settings.updateOne({ _id: SECRET_ID }, { $set: { secret } }, { upsert: true }),
      `update on ${SETTINGS_COLLECTION}`,
    );
  }
}
