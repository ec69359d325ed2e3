import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet, PetDraft, PetHold, PetRecord, PetRepository, PetStatus } from '../src/index.js';
import { petEdit, PET_STATUSES } from '../src/index.js';
import { withFixture, type ContractOptions, type MakeFixture } from './fixture.js';
import { petCreationTokenCases } from './creation-token.contract.js';
import { entryOf } from './pet-entries.js';
import { emptyPetModel, petCommandsArb } from './pet-repository.commands.js';
import { petListCases } from './pet-list.contract.js';

const asPet = (p: Pet): Pet => ({ id: p.id, name: p.name, categoryId: p.categoryId, status: p.status });
const withoutRevision = ({ revision: _revision, ...rest }: PetRecord) => rest;

/** The plain list as it was asked before the public catalogue: ascending id, at most one status and one category. */
const listById = async (
  repo: PetRepository,
  query: {
    readonly status?: PetStatus;
    readonly categoryId?: number;
    readonly afterId: number;
    readonly limit: number;
  },
): Promise<readonly Pet[]> => {
  const { pets } = await repo.list({
    order: query.afterId === 0 ? { sort: 'id' } : { sort: 'id', after: query.afterId },
    limit: query.limit,
    ...(query.status === undefined ? {} : { statuses: [query.status] }),
    ...(query.categoryId === undefined ? {} : { categoryIds: [query.categoryId] }),
  });
  return pets;
};

/**
 * The `PetRepository` contract: every adapter runs this same suite. `make` gives a fresh, empty
 * repository each time it is called.
 */
export const petRepositoryContract = (
  name: string,
  make: MakeFixture<PetRepository>,
  options: ContractOptions = {},
): void => {
  const runs = options.numRuns === undefined ? {} : { numRuns: options.numRuns };

  describe(`PetRepository contract: ${name}`, function () {
    it('assigns positive, increasing ids and stores the fields exactly as given', () =>
      withFixture(make, async (repo) => {
        const drafts: PetDraft[] = [
          { name: 'Rex', categoryId: 1, status: 'available' },
          { name: '  Ünïcødé 🐈 name  ', categoryId: Number.MAX_SAFE_INTEGER, status: 'sold' },
          { name: 'x'.repeat(200), categoryId: 42, status: 'pending' },
        ];
        const created: Pet[] = [];
        for (const draft of drafts) created.push(await repo.create(entryOf(draft)));
        created.forEach((pet, i) => expect({ ...pet }).to.deep.equal({ id: pet.id, ...drafts[i] }));
        expect(created[0]!.id).to.be.greaterThan(0);
        expect(created[1]!.id).to.be.greaterThan(created[0]!.id);
        expect(created[2]!.id).to.be.greaterThan(created[1]!.id);
        for (const pet of created) {
          const found = (await repo.findById(pet.id))!;
          expect(withoutRevision(found), 'a new pet: no hold, never patched').to.deep.equal({
            ...pet,
            orderId: null,
            statusPatchedAt: null,
          });
          expect(found.revision).to.be.a('number');
        }
      }));

    it('finds nothing for an id it never assigned', () =>
      withFixture(make, async (repo) => {
        expect(await repo.findById(1)).to.equal(undefined);
        const pet = await repo.create(entryOf({ name: 'a', categoryId: 1, status: 'available' }));
        expect(await repo.findById(pet.id + 1)).to.equal(undefined);
        expect(await repo.findById(Number.MAX_SAFE_INTEGER)).to.equal(undefined);
      }));

    it('lists in ascending id order, after a position, filtered by status, at most limit rows', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 12; i++) {
          pets.push(await repo.create(entryOf({ name: `p${i}`, categoryId: 1 + i, status: PET_STATUSES[i % 3]! })));
        }
        const plain = (rows: readonly Pet[]) => rows.map((p) => ({ ...p }));
        expect(plain(await listById(repo, { afterId: 0, limit: 100 }))).to.deep.equal(plain(pets));
        expect(plain(await listById(repo, { afterId: pets[3]!.id, limit: 4 }))).to.deep.equal(plain(pets.slice(4, 8)));
        expect(plain(await listById(repo, { status: 'pending', afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.status === 'pending')),
        );
        expect(plain(await listById(repo, { status: 'sold', afterId: pets[5]!.id, limit: 1 }))).to.deep.equal(
          plain([pets[8]!]),
        );
        expect(await listById(repo, { afterId: pets[11]!.id, limit: 5 })).to.have.length(0);
      }));

    it('gives concurrent creates distinct ids, all of them findable and listed', () =>
      withFixture(make, async (repo) => {
        const created = await Promise.all(
          Array.from({ length: 64 }, (_, i) =>
            repo.create(entryOf({ name: `c${i}`, categoryId: 7, status: 'available' })),
          ),
        );
        const ids = created.map((p) => p.id);
        expect(new Set(ids).size).to.equal(ids.length);
        const listed = await listById(repo, { afterId: 0, limit: 100 });
        expect(listed.map((p) => p.id)).to.deep.equal([...ids].sort((a, b) => a - b));
        for (const pet of created) expect((await repo.findById(pet.id))?.name).to.equal(pet.name);
      }));

    it('lists by category, and by status and category, in ascending id order after a position', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 18; i++)
          pets.push(
            await repo.create(entryOf({ name: `p${i}`, categoryId: 1 + (i % 3), status: PET_STATUSES[(i >> 1) % 3]! })),
          );
        const plain = (rows: readonly Pet[]) => rows.map(asPet);
        expect(plain(await listById(repo, { categoryId: 2, afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.categoryId === 2)),
        );
        expect(plain(await listById(repo, { categoryId: 2, afterId: pets[4]!.id, limit: 2 }))).to.deep.equal(
          plain([pets[7]!, pets[10]!]),
        );
        expect(plain(await listById(repo, { status: 'pending', categoryId: 3, afterId: 0, limit: 100 }))).to.deep.equal(
          plain(pets.filter((p) => p.status === 'pending' && p.categoryId === 3)),
        );
        expect(await listById(repo, { categoryId: 99, afterId: 0, limit: 100 })).to.have.length(0);
      }));

    it('swapHold is conditional: it changes status and orderId only from the expected hold, and lists, counts and findById see it at once', () =>
      withFixture(make, async (repo) => {
        const a = await repo.create(entryOf({ name: 'a', categoryId: 5, status: 'available' }));
        const b = await repo.create(entryOf({ name: 'b', categoryId: 5, status: 'available' }));
        expect({ ...(await repo.findHold(a.id)) }).to.deep.equal({ status: 'available', orderId: null });
        expect(await repo.findHold(b.id + 1)).to.equal(undefined);
        expect(
          await repo.swapHold(b.id + 1, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'available', orderId: 7 }, { status: 'pending', orderId: 1 }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: null }, { status: 'sold', orderId: null }),
        ).to.equal(false);
        expect(
          await repo.swapHold(a.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 1 }),
        ).to.equal(true);
        expect({ ...(await repo.findHold(a.id)) }).to.deep.equal({ status: 'pending', orderId: 1 });
        expect(withoutRevision((await repo.findById(a.id))!)).to.deep.equal({
          id: a.id,
          name: 'a',
          categoryId: 5,
          status: 'pending',
          orderId: 1,
          statusPatchedAt: null,
        });
        expect((await listById(repo, { status: 'pending', afterId: 0, limit: 10 })).map((p) => p.id)).to.deep.equal([
          a.id,
        ]);
        expect(
          (await listById(repo, { status: 'available', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.id),
        ).to.deep.equal([b.id]);
        expect(
          (await listById(repo, { status: 'pending', categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status),
        ).to.deep.equal(['pending']);
        expect((await listById(repo, { categoryId: 5, afterId: 0, limit: 10 })).map((p) => p.status)).to.deep.equal([
          'pending',
          'available',
        ]);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 1, sold: 0 });
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'sold', orderId: null }),
        ).to.equal(true);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 1, pending: 0, sold: 1 });
        expect(
          await repo.swapHold(a.id, { status: 'pending', orderId: 1 }, { status: 'available', orderId: null }),
        ).to.equal(false);
      }));

    it('of N concurrent swapHold calls from the same hold, exactly one wins', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create(entryOf({ name: 'contested', categoryId: 1, status: 'available' }));
        const from: PetHold = { status: 'available', orderId: null };
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) => repo.swapHold(pet.id, from, { status: 'pending', orderId: i + 1 })),
        );
        expect(results.filter((r) => r)).to.have.length(1);
        const winner = results.indexOf(true) + 1;
        expect({ ...(await repo.findHold(pet.id)) }).to.deep.equal({ status: 'pending', orderId: winner });
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 0, pending: 1, sold: 0 });
      }));

    it('revisions (docs/rules.md §12): a successful swapHold moves the pet to a revision it never had; a refused one changes nothing', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create(entryOf({ name: 'r', categoryId: 1, status: 'available' }));
        const seen = [(await repo.findById(pet.id))!.revision];
        expect(
          await repo.swapHold(pet.id, { status: 'pending', orderId: 1 }, { status: 'available', orderId: null }),
        ).to.equal(false);
        expect((await repo.findById(pet.id))!.revision, 'a refused swap').to.equal(seen[0]);
        const free = { status: 'available', orderId: null } as const;
        for (const [from, to] of [
          [free, { status: 'pending', orderId: 1 }],
          [{ status: 'pending', orderId: 1 }, free],
          [free, { status: 'pending', orderId: 2 }],
        ] as const) {
          expect(await repo.swapHold(pet.id, from, to)).to.equal(true);
          const revision = (await repo.findById(pet.id))!.revision;
          expect(seen, 'a new revision after each swap').not.to.include(revision);
          seen.push(revision);
        }
      }));

    it('update (docs/rules.md §12) applies only at the given revision, answers the pet after it with a new revision, and lists, indexes and counts follow at once', () =>
      withFixture(make, async (repo) => {
        const a = await repo.create(entryOf({ name: 'a', categoryId: 1, status: 'available' }));
        const b = await repo.create(entryOf({ name: 'b', categoryId: 1, status: 'sold' }));
        const r0 = (await repo.findById(a.id))!.revision;
        const at = '2027-01-01T00:00:01.000Z';
        expect(await repo.update(a.id, r0 + 1, petEdit({ name: 'stale' }), at), 'another revision').to.equal(undefined);
        expect(await repo.update(b.id + 1, 0, petEdit({ name: 'nobody' }), at), 'no such pet').to.equal(undefined);
        const renamed = (await repo.update(a.id, r0, petEdit({ name: 'A', categoryId: 2 }), at))!;
        expect(withoutRevision(renamed)).to.deep.equal({
          id: a.id,
          name: 'A',
          categoryId: 2,
          status: 'available',
          orderId: null,
          statusPatchedAt: null,
        });
        expect(renamed.revision).not.to.equal(r0);
        expect(await repo.update(a.id, r0, petEdit({ name: 'again' }), at), 'the revision it was at is gone').to.equal(
          undefined,
        );
        expect({ ...(await repo.findById(a.id)) }).to.deep.equal({ ...renamed });
        const r1 = renamed.revision;
        const sold = (await repo.update(a.id, r1, { status: 'sold' }, at))!;
        expect(sold.statusPatchedAt, 'a status change records when').to.equal(at);
        expect(sold.revision).not.to.be.oneOf([r0, r1]);
        const later = '2027-01-01T00:00:02.000Z';
        const named = (await repo.update(a.id, sold.revision, petEdit({ name: 'Alpha' }), later))!;
        expect(named.statusPatchedAt, 'a change without status keeps it').to.equal(at);
        const ids = (rows: readonly Pet[]) => rows.map((p) => p.id);
        expect(ids(await listById(repo, { categoryId: 2, afterId: 0, limit: 10 }))).to.deep.equal([a.id]);
        expect(ids(await listById(repo, { categoryId: 1, afterId: 0, limit: 10 }))).to.deep.equal([b.id]);
        expect(ids(await listById(repo, { status: 'sold', afterId: 0, limit: 10 }))).to.deep.equal([a.id, b.id]);
        expect(ids(await listById(repo, { status: 'sold', categoryId: 2, afterId: 0, limit: 10 }))).to.deep.equal([
          a.id,
        ]);
        expect(await listById(repo, { status: 'available', afterId: 0, limit: 10 })).to.have.length(0);
        expect((await listById(repo, { afterId: 0, limit: 10 })).map(asPet)).to.deep.equal([
          { id: a.id, name: 'Alpha', categoryId: 2, status: 'sold' },
          { id: b.id, name: 'b', categoryId: 1, status: 'sold' },
        ]);
        expect({ ...(await repo.countByStatus()) }).to.deep.equal({ available: 0, pending: 0, sold: 2 });
      }));

    it('update refuses a status change while the pet is held, and makes any other change while it is', () =>
      withFixture(make, async (repo) => {
        const pet = await repo.create(entryOf({ name: 'held', categoryId: 1, status: 'available' }));
        expect(
          await repo.swapHold(pet.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 4 }),
        ).to.equal(true);
        const { revision } = (await repo.findById(pet.id))!;
        expect(await repo.update(pet.id, revision, { status: 'available' }, '2027-01-01T00:00:00.000Z')).to.equal(
          undefined,
        );
        expect(
          await repo.update(
            pet.id,
            revision,
            petEdit({ name: 'still held', status: 'sold' }),
            '2027-01-01T00:00:00.000Z',
          ),
          'nothing of it',
        ).to.equal(undefined);
        expect((await repo.findById(pet.id))!.name).to.equal('held');
        const renamed = (await repo.update(
          pet.id,
          revision,
          petEdit({ name: 'still held' }),
          '2027-01-01T00:00:00.000Z',
        ))!;
        expect(withoutRevision(renamed)).to.deep.equal({
          id: pet.id,
          name: 'still held',
          categoryId: 1,
          status: 'pending',
          orderId: 4,
          statusPatchedAt: null,
        });
      }));

    it('withdraw (docs/rules.md §12): only at the given revision and while not held; then the pet is gone from every read, list, count and write, and its id is never given again', () =>
      withFixture(make, async (repo) => {
        const pets: Pet[] = [];
        for (let i = 0; i < 9; i++)
          pets.push(
            await repo.create(entryOf({ name: `p${i}`, categoryId: 1 + (i % 2), status: PET_STATUSES[i % 3]! })),
          );
        const [held, gone] = [pets[0]!, pets[3]!];
        expect(
          await repo.swapHold(held.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 8 }),
        ).to.equal(true);
        const heldAt = (await repo.findById(held.id))!.revision;
        expect(await repo.withdraw(held.id, heldAt), 'held').to.equal(false);
        const goneAt = (await repo.findById(gone.id))!.revision;
        expect(await repo.withdraw(gone.id, goneAt + 1), 'another revision').to.equal(false);
        expect(await repo.withdraw(pets[8]!.id + 1, 0), 'no such pet').to.equal(false);
        expect(await repo.findById(gone.id), 'still there after the refusals').not.to.equal(undefined);
        expect(await repo.withdraw(gone.id, goneAt)).to.equal(true);
        expect(await repo.findById(gone.id)).to.equal(undefined);
        expect(await repo.findHold(gone.id)).to.equal(undefined);
        expect(await repo.withdraw(gone.id, goneAt), 'twice').to.equal(false);
        expect(
          await repo.swapHold(gone.id, { status: 'available', orderId: null }, { status: 'pending', orderId: 9 }),
          'a placement after it',
        ).to.equal(false);
        expect(await repo.update(gone.id, goneAt, petEdit({ name: 'back' }), '2027-01-01T00:00:00.000Z')).to.equal(
          undefined,
        );
        const rest = pets.filter((p) => p.id !== gone.id).map(asPet);
        const status = (p: Pet) => (p.id === held.id ? 'pending' : p.status);
        const ids = (rows: readonly Pet[]) => rows.map((p) => p.id);
        expect(ids(await listById(repo, { afterId: 0, limit: 100 }))).to.deep.equal(ids(rest));
        for (const s of PET_STATUSES) {
          expect(ids(await listById(repo, { status: s, afterId: 0, limit: 100 }))).to.deep.equal(
            ids(rest.filter((p) => status(p) === s)),
          );
          for (const c of [1, 2]) {
            expect(ids(await listById(repo, { status: s, categoryId: c, afterId: 0, limit: 100 }))).to.deep.equal(
              ids(rest.filter((p) => status(p) === s && p.categoryId === c)),
            );
          }
        }
        expect(ids(await listById(repo, { categoryId: gone.categoryId, afterId: 0, limit: 100 }))).to.deep.equal(
          ids(rest.filter((p) => p.categoryId === gone.categoryId)),
        );
        // A page still holds exactly `limit` rows when more exist: the withdrawn pet is not a hole in it.
        expect(ids(await listById(repo, { afterId: pets[1]!.id, limit: 3 }))).to.deep.equal([
          pets[2]!.id,
          pets[4]!.id,
          pets[5]!.id,
        ]);
        const counts = { available: 0, pending: 0, sold: 0 };
        for (const p of rest) counts[status(p)]++;
        expect({ ...(await repo.countByStatus()) }).to.deep.equal(counts);
        // Ids are never reused, also when the withdrawn pet had the highest one.
        const last = pets[8]!;
        expect(await repo.withdraw(last.id, (await repo.findById(last.id))!.revision)).to.equal(true);
        expect((await repo.create(entryOf({ name: 'next', categoryId: 1, status: 'available' }))).id).to.be.greaterThan(
          last.id,
        );
      }));

    it('concurrent conditional writes on one pet: of those at one revision (updates, a withdrawal) at most one wins, of the placements at most one, and never a placement with a withdrawal or a status change', () =>
      withFixture(make, async (repo) => {
        for (let round = 0; round < 6; round++) {
          const pet = await repo.create(entryOf({ name: `contested ${round}`, categoryId: 1, status: 'available' }));
          const { revision } = (await repo.findById(pet.id))!;
          const at = '2027-01-01T00:00:00.000Z';
          const updates = Array.from({ length: 4 }, (_, i) =>
            repo.update(pet.id, revision, petEdit(i % 2 === round % 2 ? { name: `n${i}` } : { status: 'sold' }), at),
          );
          const swaps = Array.from({ length: 4 }, (_, i) =>
            repo.swapHold(pet.id, { status: 'available', orderId: null }, { status: 'pending', orderId: i + 1 }),
          );
          const withdrawal = repo.withdraw(pet.id, revision);
          const updated = (await Promise.all(updates)).filter((r) => r !== undefined);
          const swapped = (await Promise.all(swaps)).filter((r) => r);
          const withdrawn = await withdrawal;
          expect(updated.length + (withdrawn ? 1 : 0), `round ${round}: writes at the revision that won`).to.be.at.most(
            1,
          );
          expect(swapped.length, `round ${round}: placements that won`).to.be.at.most(1);
          expect(updated.length + swapped.length + (withdrawn ? 1 : 0), `round ${round}: something won`).to.be.at.least(
            1,
          );
          if (withdrawn || updated[0]?.status === 'sold')
            expect(swapped, `round ${round}: a placement with a withdrawal or a status change`).to.have.length(0);
          const after = await repo.findById(pet.id);
          if (withdrawn) expect(after).to.equal(undefined);
          else if (swapped.length === 1) expect(after?.status).to.equal('pending');
        }
      }));

    it('property: agrees with a plain array model over any sequence of creates, finds, lists (any filters, words, order and position: docs/rules.md §16), swaps, updates, withdrawals and counts; revisions change exactly when a pet does', () =>
      fc.assert(
        fc.asyncProperty(petCommandsArb, (commands) =>
          withFixture(make, (repo) => fc.asyncModelRun(() => ({ model: emptyPetModel(), real: repo }), commands)),
        ),
        { ...runs },
      ));

    petListCases(make, options);

    petCreationTokenCases(make, options);
  });
};
