// The proof of issue 28 on MongoDB (docs/rules.md §15, guarantees 1–3): two server processes and a
// relay process on one database, a mixed workload sent to both servers (creates, orders and their
// moves, patches, withdrawals, photos, key changes), and SIGKILL at random moments to any of the
// three, each restarted at once. Afterwards, once the next requests have settled what was left half
// done (an admin's order listing, the photos' sweep a start runs, a relay), the feed holds exactly one
// event per change the store holds, gap-free, each resource's events in order. Needs MONGODB_URI
// (skipped without it, as the other multi-process tests): no MongoDB can run on this machine otherwise.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Adoption, EventRelay, PhotoLibrary, type Caller, type Event } from '@petstore/domain';
import { connectMongo } from '@petstore/adapters-mongo';
import { expectFeedMatchesStore, TextImageProcessor, nodeDigests } from '@petstore/domain/testing';
import { testImage } from '@petstore/adapters-sharp/testing';
import { MongoClient } from 'mongodb';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const RELAY_WORKER = fileURLToPath(new URL('./support/relay-worker.js', import.meta.url));

/** How long the workload runs, and the requests under way at once. */
const WORKLOAD_MS = 25_000;
const CLIENTS = 6;
/**
 * A kill every KILL_EVERY_MS[0]…[1] ms, of a process that is up: a server three times as often as the
 * relay process, never the last server up (the workload goes on through the other while it restarts,
 * which takes one to several seconds on a loaded machine).
 */
const KILL_EVERY_MS = [300, 1_500] as const;

/** A small deterministic generator (mulberry32), seeded so that a failing run can be replayed: EVENTS_CRASH_SEED. */
const generator = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

describe('events across two server processes on one MongoDB, killed with SIGKILL at random moments (issue 28, docs/rules.md §15)', function () {
  const uri = process.env['MONGODB_URI'];
  if (uri === undefined || uri === '') {
    // Pending on purpose, the reason in its title, as the other multi-process tests on MongoDB.
    it('skipped: MONGODB_URI is not set (no MongoDB can run on this machine without it)');
    return;
  }
  this.timeout(240_000);

  it('afterwards the feed holds exactly one event per change the store holds, gap-free, each resource in order', async () => {
    const seed = Number(process.env['EVENTS_CRASH_SEED'] ?? Date.now() % 1_000_000);
    const random = generator(seed);
    const pick = <T>(items: readonly T[]): T | undefined =>
      items.length === 0 ? undefined : items[Math.floor(random() * items.length)];
    const database = `petstore_events_crash_${process.pid}_${Date.now().toString(36)}`;
    const databaseUri = uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/, `$1/${database}$3`);
    const client = 'events-crash-client-key-0123';
    // Admin keys have the business plan's 1,000 requests a minute: ten of them, so that the workload is rarely refused.
    const admins = Array.from({ length: 10 }, (_, i) => `events-crash-admin-key-${String(i).padStart(4, '0')}`);

    // --- The processes ---------------------------------------------------------------------------
    interface Proc {
      readonly kind: 'server' | 'relay';
      child: ChildProcess;
      /** The server's URL once it listens (the relay's: 'ready'); undefined while it starts or after it died. */
      url: string | undefined;
      exited: Promise<void>;
    }
    const spawnOne = (proc: Proc): void => {
      const env = {
        PATH: process.env['PATH'] ?? '',
        MONGODB_URI: databaseUri,
        ...(proc.kind === 'server'
          ? {
              PORT: '0',
              HOST: '127.0.0.1',
              PETSTORE_STORE: 'mongo',
              PETSTORE_API_KEYS: `${client}:enterprise:100000:10000000`,
              PETSTORE_ADMIN_KEYS: admins.join(','),
              PETSTORE_BAN_THRESHOLD: '1000000',
            }
          : {}),
      };
      const child = spawn(process.execPath, [proc.kind === 'server' ? MAIN : RELAY_WORKER], {
        cwd: fileURLToPath(new URL('.', import.meta.url)),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc.child = child;
      proc.url = undefined;
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (proc.url !== undefined || proc.child !== child) return;
        const m = proc.kind === 'server' ? /"url":"([^"]+)"/.exec(out) : /^ready$/m.exec(out);
        if (m) proc.url = m[1] ?? 'ready';
        if (out.length > 100_000) out = out.slice(-10_000);
      });
      child.stderr!.resume();
      proc.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    };
    const procs: Proc[] = (['server', 'server', 'relay'] as const).map((kind) => {
      const proc = { kind } as Proc;
      spawnOne(proc);
      return proc;
    });
    const untilUp = async (proc: Proc): Promise<void> => {
      for (let waited = 0; proc.url === undefined; waited += 20) {
        if (waited > 30_000) throw new Error(`a ${proc.kind} process did not start within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const servers = (): string[] => procs.filter((p) => p.kind === 'server' && p.url !== undefined).map((p) => p.url!);

    // --- The workload's requests -------------------------------------------------------------------
    const counts = { requests: 0, answered: 0, lost: 0, kills: 0, byKind: { server: 0, relay: 0 } };
    type Answer = { readonly status: number; readonly body: unknown } | 'lost';
    const call = async (
      method: string,
      path: string,
      options: { key?: string; body?: unknown; bytes?: Buffer; idempotencyKey?: string; url?: string } = {},
    ): Promise<Answer> => {
      const url = options.url ?? pick(servers());
      if (url === undefined) return 'lost';
      counts.requests++;
      try {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${options.key ?? pick(admins)!}`,
            ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
            ...(options.bytes !== undefined ? { 'Content-Type': 'image/jpeg' } : {}),
            ...(options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey }),
          },
          ...(options.body !== undefined
            ? { body: JSON.stringify(options.body) }
            : options.bytes !== undefined
              ? { body: options.bytes }
              : {}),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        counts.answered++;
        return {
          status: res.status,
          body:
            text.length > 0 && res.headers.get('content-type')?.includes('json')
              ? (JSON.parse(text) as unknown)
              : undefined,
        };
      } catch {
        counts.lost++;
        return 'lost';
      }
    };
    /** A create under an Idempotency-Key: sent again (to whichever server is up) while its answer is lost, a few times. */
    const create = async (path: string, options: { key?: string; body?: unknown; bytes?: Buffer }): Promise<Answer> => {
      const idempotencyKey = `crash-${seed}-${counts.requests}-${Math.floor(random() * 1e9)}`;
      const key = options.key ?? pick(admins)!;
      let answer: Answer = 'lost';
      for (let attempt = 0; attempt < 4 && (answer === 'lost' || answer.status >= 500); attempt++) {
        answer = await call('POST', path, { ...options, key, idempotencyKey });
        if (answer === 'lost' || answer.status >= 500) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return answer;
    };
    const idOf = (answer: Answer, status = 201): number | string | undefined =>
      answer !== 'lost' && answer.status === status ? (answer.body as { id?: number | string }).id : undefined;

    const known = {
      categories: [] as number[],
      pets: [] as number[],
      orders: [] as number[],
      photos: [] as { id: number; petId: number }[],
      keys: [] as string[],
    };
    const photo = await testImage({ format: 'jpeg', width: 320, height: 240, content: 'photo', seed: 7 });

    const ops: readonly (readonly [number, () => Promise<unknown>])[] = [
      [
        1,
        async () => {
          const id = idOf(
            await create('/v1/categories', { key: client, body: { name: `Kind ${Math.floor(random() * 40)}` } }),
          );
          if (typeof id === 'number') known.categories.push(id);
        },
      ],
      [
        5,
        async () => {
          const id = idOf(
            await create('/v1/pets', {
              key: client,
              body: { name: `Pet ${counts.requests}`, categoryId: pick(known.categories) ?? 1 },
            }),
          );
          if (typeof id === 'number') known.pets.push(id);
        },
      ],
      [
        4,
        async () => {
          const id = idOf(await create('/v1/store/orders', { key: client, body: { petId: pick(known.pets) ?? 1 } }));
          if (typeof id === 'number') known.orders.push(id);
        },
      ],
      [
        4,
        () =>
          call(
            'POST',
            `/v1/store/orders/${pick(known.orders) ?? 1}/${pick(['approve', 'approve', 'deliver', 'cancel'])!}`,
          ),
      ],
      [
        3,
        () => {
          const change = pick([
            { name: `Renamed ${counts.requests}` },
            { status: pick(['available', 'sold'])! },
            { categoryId: pick(known.categories) ?? 1 },
          ])!;
          return call('PATCH', `/v1/pets/${pick(known.pets) ?? 1}`, { body: change });
        },
      ],
      [1, () => call('DELETE', `/v1/pets/${pick(known.pets) ?? 1}`)],
      [
        2,
        async () => {
          const petId = pick(known.pets) ?? 1;
          const id = idOf(await create(`/v1/pets/${petId}/photos`, { bytes: photo }));
          if (typeof id === 'number') known.photos.push({ id, petId });
        },
      ],
      [
        1,
        () => {
          const target = pick(known.photos) ?? { id: 1, petId: 1 };
          return call('DELETE', `/v1/pets/${target.petId}/photos/${target.id}`);
        },
      ],
      [
        1,
        async () => {
          const id = idOf(
            await call('POST', '/v1/admin/keys', { body: { plan: pick(['free', 'pro'])!, label: 'crash test' } }),
          );
          if (typeof id === 'string') known.keys.push(id);
        },
      ],
      [
        1,
        () =>
          call('PATCH', `/v1/admin/keys/${pick(known.keys) ?? 'key_000000000000'}`, {
            body: pick([{ label: `label ${counts.requests}` }, { plan: pick(['free', 'pro'])! }])!,
          }),
      ],
      [0.5, () => call('DELETE', `/v1/admin/keys/${pick(known.keys) ?? 'key_000000000000'}`)],
    ];
    const total = ops.reduce((sum, [weight]) => sum + weight, 0);
    const randomOp = (): (() => Promise<unknown>) => {
      let at = random() * total;
      for (const [weight, op] of ops) if ((at -= weight) < 0) return op;
      return ops[0]![1];
    };

    const db = await connectMongo(databaseUri);
    const raw = await MongoClient.connect(databaseUri);
    try {
      for (const proc of procs) await untilUp(proc);
      for (let i = 1; i <= 3; i++) {
        const id = idOf(await create('/v1/categories', { key: client, body: { name: `Seed ${i}` } }));
        if (typeof id === 'number') known.categories.push(id);
      }

      // --- The workload, and the killer beside it ---------------------------------------------------
      const ends = Date.now() + WORKLOAD_MS;
      const killer = (async () => {
        while (Date.now() < ends) {
          await new Promise((resolve) =>
            setTimeout(resolve, KILL_EVERY_MS[0] + random() * (KILL_EVERY_MS[1] - KILL_EVERY_MS[0])),
          );
          const candidates = procs.filter((p) => p.url !== undefined && (p.kind === 'relay' || servers().length > 1));
          const victim = pick(candidates.flatMap((p) => (p.kind === 'server' ? [p, p, p] : [p])));
          if (victim === undefined || Date.now() >= ends) continue;
          victim.child.kill('SIGKILL');
          await victim.exited;
          counts.kills++;
          counts.byKind[victim.kind]++;
          spawnOne(victim);
        }
      })();
      await Promise.all([
        killer,
        ...Array.from({ length: CLIENTS }, async () => {
          while (Date.now() < ends) {
            if (servers().length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
            else await randomOp()();
          }
        }),
      ]);
      for (const proc of procs) await untilUp(proc);

      // --- The next requests: settle every order, sweep the photos, drain the outboxes -------------
      const admin: Caller = { keyId: 'key_crashtest000', role: 'admin' };
      const clock = { now: () => Date.now() };
      const adoption = new Adoption(db.pets, db.orders, clock);
      let cursor: string | undefined;
      do {
        const page = await adoption.listOrders(admin, cursor === undefined ? { limit: 100 } : { limit: 100, cursor });
        if (!page.ok) throw new Error(page.error.message);
        cursor = page.value.nextCursor;
      } while (cursor !== undefined);
      await new PhotoLibrary(db.pets, db.photos, new TextImageProcessor(), clock, nodeDigests).sweep();
      // The relays of the processes (and one here) move what waits; a lease of a killed holder runs out within 2 s.
      const relay = new EventRelay(db.events, clock, `crash-test-${process.pid}`);
      for (let waited = 0; (await db.events.pending(1)).length > 0; waited += 100) {
        if (waited > 20_000) throw new Error('entries still wait 20 s after the workload');
        await relay.run();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      // --- The check ------------------------------------------------------------------------------
      // Every pet ever created, withdrawn ones too: ids are 1…max without a hole (PetRepositoryMongo).
      const top = await raw
        .db(database)
        .collection<{ _id: number }>('pets')
        .findOne({}, { sort: { _id: -1 } });
      const petIds = new Set(Array.from({ length: top?._id ?? 0 }, (_, i) => i + 1));
      const feed: Event[] = [];
      for (let after = 0; ;) {
        const page = await db.events.after(after, { limit: 500 });
        if (page.length === 0) break;
        feed.push(...page);
        after = page[page.length - 1]!.sequence;
      }
      await expectFeedMatchesStore(db, petIds);
      const types = new Map<string, number>();
      for (const event of feed) types.set(event.type, (types.get(event.type) ?? 0) + 1);
      // The numbers the issue asks to report, on one line.
      console.log(
        `      events crash test (seed ${seed}): ${counts.kills} kills (servers ${counts.byKind.server}, relay ${counts.byKind.relay}), ${counts.requests} requests (${counts.answered} answered, ${counts.lost} lost to a kill), ${feed.length} events, gap-free: ${[...types].map(([t, n]) => `${t} ${n}`).join(', ')}`,
      );
      expect(counts.kills, 'processes were killed').to.be.at.least(3);
      expect(feed.length).to.be.greaterThan(50);
    } finally {
      for (const proc of procs) proc.child.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      await raw.db(database).dropDatabase();
      await raw.close();
      await db.close();
    }
  });
});
