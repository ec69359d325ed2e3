import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ORDER_ACTIONS, type AdmissionOutcome } from '@petstore/domain';
import { errorBody } from './errors.js';
import { bindServer } from './server.js';

/**
 * What the service counts (docs/rules.md §11). The HTTP app calls `request` and
 * `rateLimitDecision`; the composition root calls `storeFailure` when a store call fails with an
 * outage; the adoption use case's listener (wired in the composition root) calls `orderTransition` once per
 * order moved. No argument is ever a key,
 * a key hash or an address: only methods, route templates, statuses, outcomes, port and action names.
 */
export interface HttpMetrics {
  /** One answered request: `route` is the route template (`/v1/pets/:petId`), never the raw path. */
  request(method: string, route: string, status: number, seconds: number): void;
  rateLimitDecision(outcome: AdmissionOutcome): void;
  /** A store call that failed with `StoreUnavailableError` (outage or deadline): `port` names the port. */
  storeFailure(port: string): void;
  /** An order moved by an action (`approve`, `deliver`, `cancel`). */
  orderTransition(action: string): void;
  /** The store circuit opened (store calls fail fast) or closed again. */
  storeCircuit(open: boolean): void;
}

/** Counts nothing: the default when no metrics listener is configured. */
export const noMetrics: HttpMetrics = { request: () => {}, rateLimitDecision: () => {}, storeFailure: () => {}, orderTransition: () => {}, storeCircuit: () => {} };

/** The `route` label of a request that matched no operation (unknown path, 405, preflight…). */
export const UNMATCHED_ROUTE = 'unmatched';

type CounterChild = ReturnType<Counter<string>['labels']>;
type HistogramChild = ReturnType<Histogram<string>['labels']>;

/**
 * A counter child and what was counted for it since prom-client last collected: a request adds 1
 * to `pending` (a plain number), and prom-client adds it to the child when it collects, on a scrape.
 * prom-client's own `inc` re-hashes the child's labels on every call, which was a visible part of
 * each request's cost (BENCHMARKS.md); a scrape sees the same totals either way.
 */
interface Tally {
  readonly child: CounterChild;
  pending: number;
}

const flush = (tallies: Iterable<Tally>): void => {
  for (const tally of tallies) {
    if (tally.pending === 0) continue;
    tally.child.inc(tally.pending);
    tally.pending = 0;
  }
};

export interface PrometheusMetricsOptions {
  /** The store ports whose failures are counted (`PetRepository`…): each one's series starts at 0. */
  readonly storePorts?: readonly string[];
}

/**
 * prom-client's default metrics that `promtool check metrics` flags (a gauge named `_total`): the
 * same numbers as `nodejs_active_handles`, `…_requests` and `…_resources` by type, summed; not served.
 */
const LINTED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The metrics with prom-client, on a registry of their own (never the global one): the request
 * counter and duration histogram, the rate-limit, store-failure and order-transition counters,
 * the store circuit gauge, and the process's default metrics (memory, CPU, event-loop delay, GC).
 * Every series whose labels are known in advance (each outcome, order action and store port)
 * starts at 0, so a rate over it is defined before its first event. Label children are
 * cached by their label values; the two counters a request moves are tallied in plain numbers and
 * handed to prom-client when it collects (`Tally`), the duration is observed at once.
 */
export class PrometheusMetrics implements HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route'>;
  private readonly decisions: Counter<'outcome'>;
  private readonly storeFailures: Counter<'port'>;
  private readonly transitions: Counter<'action'>;
  private readonly circuitOpen: Gauge;
  private readonly requestTallies = new Map<string, Tally>();
  private readonly durationChildren = new Map<string, HistogramChild>();
  /** One tally per outcome, made with the counter: every outcome has one. */
  private readonly decisionTallies: Readonly<Record<AdmissionOutcome, Tally>>;

  constructor(options: PrometheusMetricsOptions = {}) {
    const registers = [this.registry];
    const requestTallies = this.requestTallies;
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'Requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect: () => flush(requestTallies.values()),
    });
    this.durations = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the app to its answer being ready, by method and route template.',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.decisions = new Counter({
      name: 'petstore_rate_limit_decisions_total',
      help: 'Rate-limit decisions, by outcome.',
      labelNames: ['outcome'],
      registers,
      collect: () => flush(Object.values(this.decisionTallies)),
    });
    this.storeFailures = new Counter({ name: 'petstore_store_failures_total', help: 'Store calls that failed with an outage or passed the deadline, by port.', labelNames: ['port'], registers });
    this.transitions = new Counter({ name: 'petstore_order_transitions_total', help: 'Order transitions, by action.', labelNames: ['action'], registers });
    this.circuitOpen = new Gauge({ name: 'petstore_store_circuit_open', help: 'Whether the store circuit is open (1: store calls fail fast with 503 until a probe call is answered) or closed (0).', registers });
    const tally = (outcome: AdmissionOutcome): Tally => ({ child: this.decisions.labels(outcome), pending: 0 });
    this.decisionTallies = { admitted: tally('admitted'), rate_limited: tally('rate_limited'), temporarily_banned: tally('temporarily_banned') };
    // The known label sets, at 0 (prom-client shows a child only once it has a value).
    for (const { child } of Object.values(this.decisionTallies)) child.inc(0);
    for (const action of ORDER_ACTIONS) this.transitions.labels(action).inc(0);
    for (const port of options.storePorts ?? []) this.storeFailures.labels(port).inc(0);
    this.circuitOpen.set(0);
    collectDefaultMetrics({ register: this.registry });
    for (const name of LINTED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
  }

  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let tally = this.requestTallies.get(key);
    if (tally === undefined) {
      tally = { child: this.requests.labels(method, route, String(status)), pending: 0 };
      this.requestTallies.set(key, tally);
    }
    tally.pending++;
    const timing = `${method} ${route}`;
    let histogram = this.durationChildren.get(timing);
    if (histogram === undefined) {
      histogram = this.durations.labels(method, route);
      this.durationChildren.set(timing, histogram);
    }
    histogram.observe(seconds);
  }

  rateLimitDecision(outcome: AdmissionOutcome): void {
    this.decisionTallies[outcome].pending++;
  }

  storeFailure(port: string): void {
    this.storeFailures.labels(port).inc();
  }

  orderTransition(action: string): void {
    this.transitions.labels(action).inc();
  }

  storeCircuit(open: boolean): void {
    this.circuitOpen.set(open ? 1 : 0);
  }
}

export interface MetricsListener {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

const answer = (res: import('node:http').ServerResponse, status: number, headers: Record<string, string>, body: string): void => {
  res.writeHead(status, { 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};

/**
 * The second listener (docs/rules.md §11): `GET /metrics` (and `HEAD`) in the Prometheus text
 * format, nothing else (404 / 405 with an `Error` body). No credential: bind it where only the
 * scraper reaches it.
 */
export const listenMetrics = async (metrics: PrometheusMetrics, options: { readonly port: number; readonly host: string }): Promise<MetricsListener> => {
  const json = { 'Content-Type': 'application/json; charset=utf-8' };
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return answer(res, 404, json, errorBody('not_found', 'this listener serves GET /metrics only'));
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, { ...json, Allow: 'GET, HEAD' }, errorBody('method_not_allowed', 'use GET /metrics'));
    metrics.registry.metrics().then(
      (text) => (req.method === 'HEAD' ? res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end() : answer(res, 200, { 'Content-Type': metrics.registry.contentType }, text)),
      () => answer(res, 500, json, errorBody('internal_error', 'the metrics could not be collected')),
    );
  });
  const { port, url } = await bindServer(server, options.port, options.host);
  return {
    server,
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
