import compose from 'koa-compose';
import type { ParameterizedContext } from 'koa';
import type { AppState } from './state.js';

/**
 * How a request reaches its route: the table of the API's operations, matched by method and path,
 * and the steps each one runs. It decides as `@koa/router` does with `{ sensitive: true, strict:
 * false }` (a test holds the two to the same answers): a template is `/`-separated segments, each a
 * literal or a named parameter (`:petId`) that takes one whole non-empty segment; case counts; one
 * trailing `/` is allowed. It is not `@koa/router` itself because dispatching through the router
 * cost the list about 11 % more instructions per request (`pnpm bench:instr`, BENCHMARKS.md), past
 * the performance target, where walking this table costs a few hundred: a tree of the templates'
 * segments, walked once per request, with nothing remembered per path.
 *
 * Parameters reach the steps as `ctx.params`, exactly as the client wrote them (not
 * percent-decoded: `%31` is not a canonical id, and the rules that read ids refuse it).
 */

/** The names of a template's parameters: `'/v1/pets/:petId/photos/:photoId'` → `'petId' | 'photoId'`. */
export type ParamNames<Template extends string> = Template extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Template extends `${string}:${infer Name}`
    ? Name
    : never;

/** The context a route's steps see: the app's, and the path parameters of its template as the client wrote them. */
export type RouteContext<Template extends string = string> = ParameterizedContext<AppState> & {
  readonly params: Readonly<Record<ParamNames<Template>, string>>;
};

/** One step of a route: a Koa middleware that sees the route's parameters. */
export type RouteStep<Template extends string = string> = (
  ctx: RouteContext<Template>,
  next: () => Promise<unknown>,
) => unknown;

/** A route of the table. */
export interface Route {
  /** The operation id (`listPets`, `uploadPetPhoto`…). */
  readonly name: string;
  /** The path template (`/v1/pets/:petId`), the route's name in logs and metrics. */
  readonly template: string;
  /**
   * A create that takes `Idempotency-Key` (docs/rules.md §10), registered with `Routes.create`: a
   * declared body over its limit is answered by its steps (and kept under the key), not by the gate.
   */
  readonly keyed: boolean;
}

/** What the table says of a method and a path. */
export type Match =
  | {
      readonly route: Route;
      /** `<METHOD> <template>` (made once per route and method, not per request). */
      readonly label: string;
      readonly params: Readonly<Record<string, string>>;
      /** The route's steps, as one middleware. */
      readonly run: (ctx: RouteContext, next: () => Promise<unknown>) => unknown;
    }
  | {
      readonly route: undefined;
      /** The methods the path has (for 405 and `Allow`), in the order they were added; none when the path is unknown (404). */
      readonly methods: readonly string[];
    };

/** A route, as the table keeps it for one method. */
interface Entry {
  readonly route: Route;
  readonly method: string;
  readonly label: string;
  /** When it was added: of two routes for a path and method, the first added is the one (as in the router). */
  readonly order: number;
  /** The template's parameter names, in order. */
  readonly names: readonly string[];
  readonly run: (ctx: RouteContext, next: () => Promise<unknown>) => unknown;
}

/** A node of the tree: one segment deeper than its parent. */
interface Node {
  readonly literals: Map<string, Node>;
  /** The same children as a list, compared in place on the way down (no segment cut out of the path, nor hashed). */
  readonly literalList: [text: string, node: Node][];
  /** The child for a parameter segment (its name is each route's own). */
  parameter: Node | undefined;
  /** The routes ending here, by method. */
  readonly entries: Map<string, Entry>;
}

const newNode = (): Node => ({ literals: new Map(), literalList: [], parameter: undefined, entries: new Map() });
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});
const NOT_FOUND: Match = Object.freeze({ route: undefined, methods: Object.freeze([]) });
const PARAMETER = /^:([A-Za-z_][A-Za-z0-9_]*)$/;
/** Literal segments: unreserved characters only (no `*`, `{`, `(`… that the router's path syntax would read otherwise). */
const LITERAL = /^[A-Za-z0-9._~-]+$/;

/** The segments of a request path (its one trailing `/` dropped); `undefined` when it is not absolute. */
const segmentsOf = (path: string): string[] | undefined => {
  if (path.charCodeAt(0) !== 0x2f) return undefined;
  const segments = path.slice(1).split('/');
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  return segments;
};

/** The API's routes, and how a request finds its own. */
export class Routes {
  private readonly root = newNode();
  /**
   * The matches of the templates without parameters, by path (with and without its trailing `/`)
   * and method, made once: most requests are answered from here, with no walk and nothing made.
   */
  private readonly literalPaths = new Map<string, Map<string, Match>>();
  private entriesAdded = 0;

  /**
   * @param keyed The step that runs a create under its `Idempotency-Key` (docs/rules.md §10),
   *   placed by `create` just before the create's last step.
   */
  constructor(private readonly keyed: RouteStep) {}

  /** `GET` (and `HEAD`, answered by the same steps; Koa sends no body for it). */
  get<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.add(['HEAD', 'GET'], name, template, steps, false);
  }

  post<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.add(['POST'], name, template, steps, false);
  }

  patch<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.add(['PATCH'], name, template, steps, false);
  }

  delete<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.add(['DELETE'], name, template, steps, false);
  }

  /**
   * `POST` of a create that takes `Idempotency-Key` (docs/rules.md §10): its steps but the last
   * run first (a role check: docs/rules.md §4 decides it before anything is looked up), then the
   * `keyed` step, then the last step (the create itself).
   */
  create<T extends string>(name: string, template: T, ...steps: RouteStep<T>[]): void {
    this.add(['POST'], name, template, [...steps.slice(0, -1), this.keyed as RouteStep<T>, ...steps.slice(-1)], true);
  }

  /** The route for `method` at `path`, with its parameters; else the methods the path has. */
  find(method: string, path: string): Match {
    const literal = this.literalPaths.get(path)?.get(method);
    if (literal !== undefined) return literal;
    if (path.charCodeAt(0) !== 0x2f) return NOT_FOUND;
    // Down the tree one segment at a time, a literal child before the parameter child.
    const values: string[] = [];
    const end = path.length > 1 && path.charCodeAt(path.length - 1) === 0x2f ? path.length - 1 : path.length;
    let node: Node | undefined = this.root;
    for (let start = 1; node !== undefined;) {
      const slash = path.indexOf('/', start);
      const stop = slash === -1 || slash > end ? end : slash;
      const child = literalAt(node, path, start, stop);
      if (child !== undefined) node = child;
      else if (node.parameter !== undefined && stop > start) {
        values.push(path.slice(start, stop));
        node = node.parameter;
      } else node = undefined;
      if (stop === end) break;
      start = stop + 1;
    }
    const entry = node?.entries.get(method);
    if (entry !== undefined)
      return { route: entry.route, label: entry.label, params: paramsOf(entry.names, values), run: entry.run };
    return this.search(method, path);
  }

  /**
   * No route on the first way down: every way (a parameter where a literal led nowhere), then the
   * methods the path has.
   */
  private search(method: string, path: string): Match {
    const segments = segmentsOf(path);
    if (segments === undefined) return NOT_FOUND;
    const values: string[] = [];
    const node = this.walk(this.root, segments, 0, values, method);
    const entry = node?.entries.get(method);
    if (entry === undefined) return this.allowed(segments);
    return { route: entry.route, label: entry.label, params: paramsOf(entry.names, values), run: entry.run };
  }

  private add(
    methods: readonly string[],
    name: string,
    template: string,
    steps: readonly RouteStep[],
    keyed: boolean,
  ): void {
    const segments = segmentsOf(template);
    if (segments === undefined || steps.length === 0)
      throw new Error(`route ${name}: a template starts with / and a route has steps (${template})`);
    let node = this.root;
    const names: string[] = [];
    for (const segment of segments) {
      const parameter = PARAMETER.exec(segment)?.[1];
      if (parameter !== undefined) {
        names.push(parameter);
        node = node.parameter ??= newNode();
      } else {
        if (!LITERAL.test(segment)) throw new Error(`route ${name}: a segment is a literal or :name (${template})`);
        let child = node.literals.get(segment);
        if (child === undefined) {
          node.literals.set(segment, (child = newNode()));
          node.literalList.push([segment, child]);
        }
        node = child;
      }
    }
    const run = steps.length === 1 ? steps[0]! : compose(steps as RouteStep[]);
    const route: Route = { name, template, keyed };
    for (const method of methods) {
      if (node.entries.has(method)) throw new Error(`route ${name}: ${method} ${template} is already routed`);
      const entry: Entry = {
        route,
        method,
        label: `${method} ${template}`,
        order: this.entriesAdded++,
        names,
        run: run as Entry['run'],
      };
      node.entries.set(method, entry);
      if (names.length === 0) {
        // The shape of every other match (`find`'s callers see one kind of object).
        const match: Match = { route, label: entry.label, params: NO_PARAMS, run: entry.run };
        for (const path of segments[0] === '' ? [template] : [template, `${template}/`]) {
          let byMethod = this.literalPaths.get(path);
          if (byMethod === undefined) this.literalPaths.set(path, (byMethod = new Map()));
          byMethod.set(method, match);
        }
      }
    }
  }

  /**
   * The node where `segments` end, literal children before the parameter child; one that has a
   * route for `method` is preferred to one that has none (as the router takes the first route
   * matching both), so a literal path that lacks the method falls back to a parameter that has it.
   */
  private walk(
    node: Node,
    segments: readonly string[],
    at: number,
    values: string[],
    method: string,
  ): Node | undefined {
    if (at === segments.length) return node.entries.has(method) ? node : undefined;
    const segment = segments[at]!;
    const literal = node.literals.get(segment);
    if (literal !== undefined) {
      const found = this.walk(literal, segments, at + 1, values, method);
      if (found !== undefined) return found;
    }
    if (node.parameter === undefined || segment === '') return undefined;
    values.push(segment);
    const found = this.walk(node.parameter, segments, at + 1, values, method);
    if (found === undefined) values.pop();
    return found;
  }

  /** No route for the method: the methods of every route whose template matches the path, in the order they were added. */
  private allowed(segments: readonly string[]): Match {
    const entries: Entry[] = [];
    const collect = (node: Node, at: number): void => {
      if (at === segments.length) {
        entries.push(...node.entries.values());
        return;
      }
      const segment = segments[at]!;
      const literal = node.literals.get(segment);
      if (literal !== undefined) collect(literal, at + 1);
      if (node.parameter !== undefined && segment !== '') collect(node.parameter, at + 1);
    };
    collect(this.root, 0);
    if (entries.length === 0) return NOT_FOUND;
    const methods = [...new Set(entries.sort((a, b) => a.order - b.order).map((e) => e.method))];
    return { route: undefined, methods };
  }
}

/** Runs the route `find` matched, its parameters in `ctx.params`. */
export const dispatch = (
  ctx: ParameterizedContext<AppState>,
  match: Extract<Match, { route: Route }>,
  next: () => Promise<unknown>,
): unknown => {
  const routed = ctx as ParameterizedContext<AppState> & { params: Readonly<Record<string, string>> };
  routed.params = match.params;
  return match.run(routed as RouteContext, next);
};

/** The literal child of `node` that is `path` from `start` to `stop`, if any. */
const literalAt = (node: Node, path: string, start: number, stop: number): Node | undefined => {
  for (const [text, child] of node.literalList)
    if (text.length === stop - start && path.startsWith(text, start)) return child;
  return undefined;
};

/** The parameters of a template, named, from the segments the walk took for them. */
const paramsOf = (names: readonly string[], values: readonly string[]): Readonly<Record<string, string>> => {
  if (values.length === 0) return NO_PARAMS;
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) params[names[i]!] = values[i]!;
  return params;
};
