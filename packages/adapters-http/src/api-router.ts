import Router, { type RouterContext, type RouterMiddleware } from '@koa/router';
import compose from 'koa-compose';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import { quoteInput } from '@petstore/domain';
import { BODY_LIMIT_BYTES } from './body.js';
import { HttpError } from './errors.js';
import type { AppState } from './state.js';

/** The names of a template's parameters: `'/v1/pets/:petId/photos/:photoId'` → `'petId' | 'photoId'`. */
export type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/** The context a route's steps see: the app's, and the parameters of its path as the client wrote them. */
export type RouteContext<Path extends string = string> = ParameterizedContext<AppState> & {
  readonly params: Readonly<Record<ParamNames<Path>, string>>;
};

/** One step of a route: a Koa middleware that sees the route's parameters. */
export type RouteStep<Path extends string = string> = (ctx: RouteContext<Path>, next: Next) => unknown;

/** What a route says of itself where it is registered. */
export interface RouteOptions<Path extends string = string> {
  /** The operation id (`listPets`, `uploadPetPhoto`…): the route's name in the router. */
  readonly name: string;
  /** The path template (`/v1/pets/:petId`): the route's name in logs and metrics. */
  readonly path: Path;
  /** The largest body it takes (docs/rules.md §1, §6); `BODY_LIMIT_BYTES` (1 MiB) when absent. */
  readonly bodyLimit?: number;
  /**
   * A create that takes `Idempotency-Key` (docs/rules.md §10): its last step (the create) runs
   * under the key, after the others (a role check, decided before anything is looked up, §4).
   */
  readonly idempotentCreate?: boolean;
  /** How a key is admitted: by its plan's windows (§5, the default), or by its own allowance (`GET /v1/me`, §14). */
  readonly admission?: 'plan' | 'own-status';
  /** Headers on every answer of the route, errors and refusals included (a deprecation, §2). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A photo's bytes, which a signed URL may read without a key (docs/rules.md §16): the router's `signedUrl` step runs first. */
  readonly signedUrl?: boolean;
  /** A publishable key may use it (docs/rules.md §16: the catalogue's reads); any other route refuses one, 403. */
  readonly publishable?: boolean;
}

/** A route's options with their defaults, as the gate's steps read them (`ctx.state.routeSettings`). */
export interface RouteSettings {
  readonly name: string;
  readonly path: string;
  readonly bodyLimit: number;
  readonly idempotentCreate: boolean;
  readonly admission: 'plan' | 'own-status';
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly signedUrl: boolean;
  readonly publishable: boolean;
}

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * Routes of the API, on one `@koa/router` (case-sensitive; one trailing `/` allowed). Each route is
 * registered with its options and steps, and runs, in this order: `enter` (its settings, for the
 * steps after it), the `gate` given here (the same steps on every route), then its own steps
 * (a create's last step under the `Idempotency-Key` step).
 */
export class ApiRouter {
  private readonly router = new Router<AppState>({ sensitive: true, strict: false });

  constructor(
    private readonly gate: readonly Middleware<AppState>[],
    /** The step that runs a create under its `Idempotency-Key` (docs/rules.md §10). */
    private readonly underKey: Middleware<AppState>,
    /** Before the gate on the routes registered with `signedUrl`: a signed URL standing for a key (docs/rules.md §16). */
    private readonly signedUrl?: Middleware<AppState>,
  ) {}

  /** `GET`, and `HEAD` (the router answers it with the same steps; Koa sends no body). */
  get<P extends string>(options: RouteOptions<P>, ...steps: RouteStep<P>[]): void {
    this.add('get', options, steps);
  }

  post<P extends string>(options: RouteOptions<P>, ...steps: RouteStep<P>[]): void {
    this.add('post', options, steps);
  }

  patch<P extends string>(options: RouteOptions<P>, ...steps: RouteStep<P>[]): void {
    this.add('patch', options, steps);
  }

  delete<P extends string>(options: RouteOptions<P>, ...steps: RouteStep<P>[]): void {
    this.add('delete', options, steps);
  }

  /** The router's middleware: the route of the method and path runs; without one, the next middleware does. */
  routes(): RouterMiddleware<AppState> {
    return this.router.routes();
  }

  private add<P extends string>(method: Method, options: RouteOptions<P>, steps: readonly RouteStep<P>[]): void {
    const settings: RouteSettings = {
      name: options.name,
      path: options.path,
      bodyLimit: options.bodyLimit ?? BODY_LIMIT_BYTES,
      idempotentCreate: options.idempotentCreate === true,
      admission: options.admission ?? 'plan',
      headers: options.headers,
      signedUrl: options.signedUrl === true,
      publishable: options.publishable === true,
    };
    const own = steps as readonly Middleware<AppState>[];
    const run = settings.idempotentCreate ? [...own.slice(0, -1), this.underKey, ...own.slice(-1)] : own;
    // One middleware per route, composed here once: the router composes a route's middleware
    // again on every request it matches.
    const gate = settings.signedUrl && this.signedUrl !== undefined ? [this.signedUrl, ...this.gate] : this.gate;
    const composed = compose([enter(method, settings) as Middleware<AppState>, ...gate, ...run]);
    this.router[method](options.name, options.path, composed as RouterMiddleware<AppState>);
  }
}

/**
 * A route's first step: its settings on `ctx.state` (read by the gate's steps), its label for the
 * log line, its headers, and its parameters as the client wrote them. The router decodes them
 * (`%31` → `1`); the API does not (`%31` is not a canonical id, and the rules that read ids refuse
 * it), so they are the router's captures, which are the path's own text.
 */
const enter = (method: Method, settings: RouteSettings): RouterMiddleware<AppState> => {
  const names = [...settings.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const label = `${method.toUpperCase()} ${settings.path}`;
  const headLabel = `HEAD ${settings.path}`;
  return function enter(ctx, next) {
    ctx.state.routeSettings = settings;
    ctx.state.route = ctx.method === 'HEAD' ? headLabel : label;
    if (settings.headers !== undefined) ctx.set(settings.headers);
    if (names.length > 0) {
      const captures = ctx.captures ?? [];
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) params[names[i]!] = captures[i] ?? '';
      ctx.params = params;
    }
    return next();
  };
};

/**
 * After the router, for a request no route took (`ctx.routeMatched`, set by the router): the
 * `before` steps (the quota and the request checks, as on a route), then 404 for an unknown path;
 * for a known one, 204 with `Allow` to `OPTIONS`, else 405 with `Allow` (docs/rules.md §2: any
 * other method, `TRACE` and `PROPFIND` too, is 405, never 501).
 */
export const unrouted = (...before: Middleware<AppState>[]): Middleware<AppState> => {
  const chain = compose([...before, answerUnrouted as Middleware<AppState>]);
  return function unrouted(ctx, next) {
    return (ctx as RouterContext<AppState>).routeMatched === true ? next() : chain(ctx, next);
  };
};

/** The methods of every route whose path matched (`ctx.matched`, in the order they were registered), or 404. */
const answerUnrouted: RouterMiddleware<AppState> = (ctx) => {
  const methods = new Set<string>();
  for (const layer of ctx.matched ?? []) for (const method of layer.methods) methods.add(method);
  if (methods.size === 0) throw new HttpError('not_found', `no such path: ${quoteInput(ctx.path || ctx.url)}`);
  const allow = [...methods, 'OPTIONS'].join(', ');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Allow', allow);
    ctx.status = 204;
    return;
  }
  throw new HttpError('method_not_allowed', `${quoteInput(ctx.method)} is not allowed here; use ${allow}`, {
    Allow: allow,
  });
};
