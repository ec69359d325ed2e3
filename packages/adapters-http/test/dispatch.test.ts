// dispatch.ts: the route table decides as @koa/router would (the reference, with the options the
// API used with it), for the API's own routes and any path; parameters come as the client wrote them.
import { METHODS } from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import Router from '@koa/router';
import type { Adoption, CategoryCatalog, KeyAdmin, PetCatalog, PetMaintenance, PhotoLibrary } from '@petstore/domain';
import { Routes, dispatch, type Match, type RouteStep } from '../src/dispatch.js';
import { addCatalogRoutes } from '../src/routes.js';
import { addAdminKeyRoutes } from '../src/admin-keys.js';
import { addOwnStatusRoute } from '../src/own-status.js';
import { addPetMaintenanceRoutes } from '../src/pets-maintenance.js';
import { addPhotoRoutes } from '../src/photos.js';
import { compileValidators } from '../src/validation.js';
import { IDEMPOTENT_CREATES } from '../src/index.js';

interface Added {
  readonly methods: readonly string[];
  readonly name: string;
  readonly template: string;
}

/** A table that also lists what was added to it, in order (the reference router gets the same). */
class ListedRoutes extends Routes {
  readonly listed: Added[] = [];
  override get<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.listed.push({ methods: ['get'], name, template });
    super.get(name, template, ...steps);
  }
  override post<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.listed.push({ methods: ['post'], name, template });
    super.post(name, template, ...steps);
  }
  override patch<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.listed.push({ methods: ['patch'], name, template });
    super.patch(name, template, ...steps);
  }
  override delete<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.listed.push({ methods: ['delete'], name, template });
    super.delete(name, template, ...steps);
  }
  override create<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.listed.push({ methods: ['post'], name, template });
    super.create(name, template, ...steps);
  }
}

const pass: RouteStep = (_ctx, next) => next();

/** The API's table, as createHttpApp builds it (the use cases are never called here). */
const apiRoutes = (): ListedRoutes => {
  const routes = new ListedRoutes(pass);
  const none = {} as never;
  const validators = compileValidators();
  addCatalogRoutes(routes, none as PetCatalog, none as CategoryCatalog, none as Adoption, validators);
  addAdminKeyRoutes(routes, none as KeyAdmin, validators);
  addOwnStatusRoute(routes);
  addPetMaintenanceRoutes(routes, none as PetMaintenance, validators);
  addPhotoRoutes(routes, none as PhotoLibrary, pass);
  return routes;
};

/** What @koa/router (`sensitive: true, strict: false`, as the API had it) decides for a method and path. */
const reference = (added: readonly Added[]) => {
  const router = new Router({ sensitive: true, strict: false });
  for (const { methods, name, template } of added) {
    for (const method of methods) {
      (router[method as 'get'] as (name: string, path: string, handler: RouteStep) => void)(name, template, (ctx) => {
        const c = ctx as unknown as { routerName: string; captures: string[]; state: { found?: unknown } };
        c.state.found = { name: c.routerName, raw: c.captures };
      });
    }
  }
  const routes = router.routes();
  return async (method: string, path: string): Promise<{ name: string; raw: string[] } | { methods: string[] }> => {
    const ctx = {
      method,
      path,
      request: {},
      state: {} as { found?: { name: string; raw: string[] } },
    } as unknown as Parameters<typeof routes>[0] & {
      state: { found?: { name: string; raw: string[] } };
      matched?: { methods: string[] }[];
    };
    await routes(ctx, async () => undefined);
    if (ctx.state.found !== undefined) return ctx.state.found;
    return { methods: [...new Set((ctx.matched ?? []).flatMap((layer) => layer.methods))] };
  };
};

const decided = (match: Match): { name: string; raw: string[] } | { methods: string[] } =>
  match.route === undefined
    ? { methods: [...match.methods] }
    : { name: match.route.name, raw: Object.values(match.params) };

describe('dispatch.ts: the route table (issue 27 §1)', () => {
  const routes = apiRoutes();
  const koa = reference(routes.listed);
  const segments = [
    ...new Set(routes.listed.flatMap((r) => r.template.split('/')).filter((s) => s !== '' && !s.startsWith(':'))),
  ];

  it('property: for the API routes and any method and path, the same route, raw parameters and methods as @koa/router', async () => {
    const segment = fc.oneof(
      fc.constantFrom(...segments),
      fc.constantFrom(
        '1',
        '42',
        '%31',
        'abc',
        '',
        '.',
        '..',
        '%2F',
        'a%2Fb',
        'V1',
        'Pets',
        'pets ',
        ':petId',
        '%',
        '%zz',
        'x',
      ),
    );
    const anyPath = fc
      .tuple(fc.array(segment, { maxLength: 7 }), fc.boolean(), fc.boolean())
      .map(([parts, slash, absolute]) => `${absolute ? '/' : ''}${parts.join('/')}${slash ? '/' : ''}`);
    // A template with its parameters filled in (often a route's own path), a trailing / sometimes.
    const templatePath = fc
      .tuple(
        fc.constantFrom(...routes.listed.map((r) => r.template)),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        fc.constantFrom('', '/', '//', '/x'),
      )
      .map(
        ([template, values, tail]) =>
          `${template
            .split('/')
            .map((part) => (part.startsWith(':') ? values[part.length % 3]! : part))
            .join('/')}${tail}`,
      );
    const path = fc.oneof(anyPath, templatePath);
    const method = fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT'));
    await fc.assert(
      fc.asyncProperty(method, path, async (m, p) => {
        expect(decided(routes.find(m, p)), `${m} ${p}`).to.deep.equal(await koa(m, p));
      }),
      { numRuns: 3000 },
    );
  });

  it('every route of the table is found at its own template, with the methods it was added with (HEAD with GET)', async () => {
    for (const { methods, name, template } of routes.listed) {
      const path = template.replace(/:[A-Za-z]+/g, (p) => `${p.length}`);
      for (const method of methods.flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()]))) {
        const match = routes.find(method, path);
        expect(match.route?.name, `${method} ${path}`).to.equal(name);
        expect(match.route !== undefined && match.label).to.equal(`${method} ${template}`);
        expect(decided(match)).to.deep.equal(await koa(method, path));
      }
    }
  });

  it('the keyed routes (the creates under Idempotency-Key, Routes.create) are exactly the POSTs of IDEMPOTENT_CREATES, which the OpenAPI document lists', () => {
    const keyed = routes.listed.filter(({ methods, template }) => {
      const match = routes.find(methods[0]!.toUpperCase(), template.replace(/:[A-Za-z]+/g, '1'));
      return match.route?.keyed === true;
    });
    expect(keyed.map((r) => r.template).sort()).to.deep.equal([...IDEMPOTENT_CREATES].sort());
    expect(keyed.every((r) => r.methods[0] === 'post')).to.equal(true);
  });

  it('parameters are named and as the client wrote them (not decoded): %31 is not 1', () => {
    const match = routes.find('GET', '/v1/pets/%31/photos/a%2Fb');
    expect(match.route?.name).to.equal('getPetPhoto');
    expect(match.route !== undefined && match.params).to.deep.equal({ petId: '%31', photoId: 'a%2Fb' });
    expect(routes.find('GET', '/v1/pets').route !== undefined && routes.find('GET', '/v1/pets')).to.deep.include({
      params: {},
    });
  });

  it('the creates of Routes.create are keyed; the last step runs last, after the keyed step; dispatch sets ctx.params', async () => {
    const order: string[] = [];
    const step =
      (name: string): RouteStep =>
      async (_ctx, next) => {
        order.push(name);
        await next();
      };
    const table = new Routes(step('keyed'));
    table.create('make', '/things/:id', step('guard'), async (ctx) => {
      order.push(`create ${String((ctx.params as Record<string, string>)['id'])}`);
    });
    table.post('plain', '/other', step('plain'));
    const match = table.find('POST', '/things/7');
    if (match.route === undefined) throw new Error('no route');
    expect(match.route).to.deep.equal({ name: 'make', template: '/things/:id', keyed: true });
    expect(table.find('POST', '/other').route).to.deep.include({ keyed: false });
    const ctx = { method: 'POST', state: {} } as unknown as Parameters<typeof dispatch>[0];
    await dispatch(ctx, match, async () => undefined);
    expect(order).to.deep.equal(['guard', 'keyed', 'create 7']);
    expect((ctx as unknown as { params: unknown }).params).to.deep.equal({ id: '7' });
  });

  it('refuses a template it could not match as the router does, and a method routed twice', () => {
    const table = new Routes(pass);
    expect(() => table.get('x', 'v1/pets', pass)).to.throw(/starts with \//);
    expect(() => table.get('x', '/v1/pets/:pet-id', pass)).to.throw(/literal or :name/);
    expect(() => table.get('x', '/v1/*', pass)).to.throw(/literal or :name/);
    expect(() => table.get('x', '/v1/{a}', pass)).to.throw(/literal or :name/);
    expect(() => table.get('x', '/v1/pets')).to.throw(/has steps/);
    table.get('a', '/v1/a/:id', pass);
    expect(() => table.get('b', '/v1/a/:other', pass)).to.throw(/already routed/);
    expect(() => table.post('b', '/v1/a/:other', pass)).not.to.throw();
  });
});
