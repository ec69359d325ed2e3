import { createServer, type Server } from 'node:http';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricType,
  type MetricValueWithName,
} from 'prom-client';
import {
  DELIVERY_OUTCOMES,
  EVENT_TYPES,
  ORDER_ACTIONS,
  type AdmissionOutcome,
  type DeliveryOutcome,
} from '@petstore/domain';
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
  /**
   * An event appended to the feed by this process's relay (docs/rules.md §15): once per event, not
   * again for a repeat the relay found in the feed already. (Optional: metrics written before the feed.)
   */
  eventAppended?(type: string): void;
  /** A webhook delivery attempt made by this process (docs/rules.md §15), by its outcome. (Optional, as `eventAppended`.) */
  webhookAttempt?(outcome: DeliveryOutcome): void;
  /**
   * Where `petstore_webhook_lag_seconds` is read from at each scrape: the age of the oldest event an
   * enabled subscription has not yet delivered (0 when none). Until it is given, the gauge shows 0.
   */
  webhookLag?(read: () => Promise<number>): void;
}

/** Counts nothing: the default when no metrics listener is configured. */
export const noMetrics: HttpMetrics = {
  request: () => {},
  rateLimitDecision: () => {},
  storeFailure: () => {},
  orderTransition: () => {},
  storeCircuit: () => {},
  eventAppended: () => {},
  webhookAttempt: () => {},
  webhookLag: () => {},
};

/** The `route` label of a request that matched no operation (unknown path, 405, preflight…). */
export const UNMATCHED_ROUTE = 'unmatched';

type CounterChild = ReturnType<Counter<string>['labels']>;

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

const flush = (tallies: readonly Tally[]): void => {
  for (const tally of tallies) {
    if (tally.pending === 0) continue;
    tally.child.inc(tally.pending);
    tally.pending = 0;
  }
};

/** What is counted per method and route template. */
interface RouteTally {
  readonly statuses: Map<number, Tally>;
  readonly durations: DurationTally;
}

/** The observations of one label set of `TalliedHistogram`: counts per bucket (not cumulative), their sum and number. */
class DurationTally {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<'method' | 'route', string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** The type a histogram's `get()` reports: prom-client's registry prints it as is (its typings declare a numeric enum; the library itself uses these words). */
const HISTOGRAM = 'histogram' as unknown as MetricType;

type HistogramConfiguration = ConstructorParameters<typeof Histogram<'method' | 'route'>>[0] & {
  readonly buckets: readonly number[];
};

/**
 * A prom-client histogram whose observations are tallied in plain numbers, one `DurationTally` per
 * label set found without building a key, and handed to prom-client's exposition through `get()`
 * (what its registry reads on a scrape) in the shape its own histograms give. prom-client's
 * `observe` checks and hashes the labels again on every call, a visible part of each request's
 * cost (`pnpm bench:instr`); a scrape shows the same buckets, sums and counts either way.
 */
class TalliedHistogram extends Histogram<'method' | 'route'> {
  private readonly bounds: readonly number[];
  private readonly tallies: DurationTally[] = [];
  private readonly metricName: string;
  private readonly metricHelp: string;

  constructor(configuration: HistogramConfiguration) {
    super(configuration);
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
    this.metricName = configuration.name;
    this.metricHelp = configuration.help;
  }

  /** The tally of one label set (make it once, keep it). */
  tally(labels: Readonly<Record<'method' | 'route', string>>): DurationTally {
    const tally = new DurationTally(labels, this.bounds);
    this.tallies.push(tally);
    return tally;
  }

  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<'method' | 'route' | 'le'>>> {
    const values: MetricValueWithName<'method' | 'route' | 'le'>[] = [];
    for (const tally of this.tallies) {
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += tally.counts[i]!;
        values.push({
          labels: { le: i < this.bounds.length ? this.bounds[i]! : '+Inf', ...tally.labels },
          value: cumulative,
          metricName: `${this.metricName}_bucket`,
        });
      }
      values.push({ labels: { ...tally.labels }, value: tally.sum, metricName: `${this.metricName}_sum` });
      values.push({ labels: { ...tally.labels }, value: tally.count, metricName: `${this.metricName}_count` });
    }
    return {
      name: this.metricName,
      help: this.metricHelp,
      type: HISTOGRAM,
      values,
      aggregator: 'sum',
      collect: () => undefined,
    };
  }

  /** What prom-client's registry reads for the text format when a metric has it (its histograms do): the same values. */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<'method' | 'route' | 'le'>>> {
    return this.get();
  }

  override reset(): void {
    super.reset();
    // Also called by the base class's constructor, before this class's fields exist.
    for (const tally of (this.tallies as DurationTally[] | undefined) ?? []) {
      tally.counts.fill(0);
      tally.sum = 0;
      tally.count = 0;
    }
  }
}

export interface PrometheusMetricsOptions {
  /** The store ports whose failures are counted (`PetRepository`…): each one's series starts at 0. */
  readonly storePorts?: readonly string[];
}

/**
 * prom-client's default metrics that `promtool check metrics` flags (a gauge named `_total`): the
 * same numbers as `nodejs_active_handles`, `…_requests` and `…_resources` by type, summed; not served.
 */
const LINTED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * The metrics with prom-client, on a registry of their own (never the global one): the request
 * counter and duration histogram, the rate-limit, store-failure, order-transition and event counters,
 * the store circuit gauge, and the process's default metrics (memory, CPU, event-loop delay, GC).
 * Every series whose labels are known in advance (each outcome, order action, store port and event type)
 * starts at 0, so a rate over it is defined before its first event. Label children are
 * cached by their label values; what a request moves (its counters and its duration) is tallied in
 * plain numbers and handed to prom-client when it collects (`Tally`, `TalliedHistogram`).
 */
export class PrometheusMetrics implements HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: TalliedHistogram;
  private readonly decisions: Counter<'outcome'>;
  private readonly storeFailures: Counter<'port'>;
  private readonly transitions: Counter<'action'>;
  private readonly circuitOpen: Gauge;
  private readonly events: Counter<'type'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly lag: Gauge;
  /** Reads the webhooks' lag at a scrape (`webhookLag`); none: 0. */
  private readLag: (() => Promise<number>) | undefined;
  /** One tally per event type, made with the counter (an event is counted on a write's path: no label hashing there). */
  private readonly eventTallies = new Map<string, Tally>();
  /** Per method, per route template: the request tallies by status and the durations. */
  private readonly routes = new Map<string, Map<string, RouteTally>>();
  private readonly requestTallies: Tally[] = [];
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
      collect: () => flush(requestTallies),
    });
    this.durations = new TalliedHistogram({
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
    this.storeFailures = new Counter({
      name: 'petstore_store_failures_total',
      help: 'Store calls that failed with an outage or passed the deadline, by port.',
      labelNames: ['port'],
      registers,
    });
    this.transitions = new Counter({
      name: 'petstore_order_transitions_total',
      help: 'Order transitions, by action.',
      labelNames: ['action'],
      registers,
    });
    this.events = new Counter({
      name: 'petstore_events_total',
      help: 'Events appended to the feed by this process, by type (docs/rules.md §15).',
      labelNames: ['type'],
      registers,
      collect: () => flush([...this.eventTallies.values()]),
    });
    this.deliveries = new Counter({
      name: 'petstore_webhook_deliveries_total',
      help: 'Webhook delivery attempts made by this process, by outcome (docs/rules.md §15).',
      labelNames: ['outcome'],
      registers,
    });
    // Read at each scrape; a store that does not answer leaves the last value (a scrape never fails on it).
    const readLag = () => this.readLag;
    this.lag = new Gauge({
      name: 'petstore_webhook_lag_seconds',
      help: 'Age of the oldest event an enabled webhook subscription has not yet delivered, in seconds; 0 when none (docs/rules.md §15).',
      registers,
      async collect() {
        const read = readLag();
        if (read === undefined) return;
        try {
          this.set(await read());
        } catch {
          // The store did not answer: the last value stays.
        }
      },
    });
    this.circuitOpen = new Gauge({
      name: 'petstore_store_circuit_open',
      help: 'Whether the store circuit is open (1: store calls fail fast with 503 until a probe call is answered) or closed (0).',
      registers,
    });
    const tally = (outcome: AdmissionOutcome): Tally => ({ child: this.decisions.labels(outcome), pending: 0 });
    this.decisionTallies = {
      admitted: tally('admitted'),
      rate_limited: tally('rate_limited'),
      temporarily_banned: tally('temporarily_banned'),
    };
    // The known label sets, at 0 (prom-client shows a child only once it has a value).
    for (const { child } of Object.values(this.decisionTallies)) child.inc(0);
    for (const action of ORDER_ACTIONS) this.transitions.labels(action).inc(0);
    for (const type of EVENT_TYPES) {
      const child = this.events.labels(type);
      child.inc(0);
      this.eventTallies.set(type, { child, pending: 0 });
    }
    for (const outcome of DELIVERY_OUTCOMES) this.deliveries.labels(outcome).inc(0);
    this.lag.set(0);
    for (const port of options.storePorts ?? []) this.storeFailures.labels(port).inc(0);
    this.circuitOpen.set(0);
    collectDefaultMetrics({ register: this.registry });
    for (const name of LINTED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
  }

  request(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.routes.get(method);
    if (byRoute === undefined) this.routes.set(method, (byRoute = new Map()));
    let tally = byRoute.get(route);
    if (tally === undefined)
      byRoute.set(route, (tally = { statuses: new Map(), durations: this.durations.tally({ method, route }) }));
    let counted = tally.statuses.get(status);
    if (counted === undefined) {
      counted = { child: this.requests.labels(method, route, String(status)), pending: 0 };
      tally.statuses.set(status, counted);
      this.requestTallies.push(counted);
    }
    counted.pending++;
    tally.durations.observe(seconds);
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

  eventAppended(type: string): void {
    const tally = this.eventTallies.get(type);
    if (tally === undefined) this.events.labels(type).inc();
    else tally.pending++;
  }

  webhookAttempt(outcome: DeliveryOutcome): void {
    this.deliveries.labels(outcome).inc();
  }

  webhookLag(read: () => Promise<number>): void {
    this.readLag = read;
  }
}

export interface MetricsListener {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

const answer = (
  res: import('node:http').ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void => {
  res.writeHead(status, { 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};

/**
 * The second listener (docs/rules.md §11): `GET /metrics` (and `HEAD`) in the Prometheus text
 * format, nothing else (404 / 405 with an `Error` body). No credential: bind it where only the
 * scraper reaches it.
 */
export const listenMetrics = async (
  metrics: PrometheusMetrics,
  options: { readonly port: number; readonly host: string },
): Promise<MetricsListener> => {
  const json = { 'Content-Type': 'application/json; charset=utf-8' };
  const server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 },
    (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/metrics')
        return answer(res, 404, json, errorBody('not_found', 'this listener serves GET /metrics only'));
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return answer(res, 405, { ...json, Allow: 'GET, HEAD' }, errorBody('method_not_allowed', 'use GET /metrics'));
      metrics.registry.metrics().then(
        (text) =>
          req.method === 'HEAD'
            ? res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end()
            : answer(res, 200, { 'Content-Type': metrics.registry.contentType }, text),
        () => answer(res, 500, json, errorBody('internal_error', 'the metrics could not be collected')),
      );
    },
  );
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
