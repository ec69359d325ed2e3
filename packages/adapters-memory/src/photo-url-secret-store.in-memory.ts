import type { PhotoUrlSecretStore } from '@petstore/domain';

/**
 * The signing secret of the photo URLs (docs/rules.md §16) for the life of the process: a restart
 * makes a new one, and every URL made before stops working, as the memory store's pets go too.
 */
export class PhotoUrlSecretStoreInMemory implements PhotoUrlSecretStore {
  private secret: string | undefined;

  async read(): Promise<string | undefined> {
    return this.secret;
  }

  async create(secret: string): Promise<string> {
    this.secret ??= secret;
    return this.secret;
  }

  async rotate(secret: string): Promise<void> {
    this.secret = secret;
  }
}
