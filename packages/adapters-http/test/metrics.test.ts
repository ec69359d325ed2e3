// docs/rules.md §11: the counters a request moves are tallied in plain numbers and handed to
// prom-client when it collects; every scrape must show the exact totals, never one twice.
import { expect } from 'chai';
import { PrometheusMetrics } from '../src/index.js';

const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

describe('PrometheusMetrics', () => {
  it('each scrape shows every request and decision counted so far, exactly once', async () => {
    const metrics = new PrometheusMetrics();
    const ok = 'http_requests_total{method="GET",route="/v1/pets",status="200"}';
    const admitted = 'petstore_rate_limit_decisions_total{outcome="admitted"}';
    const count = 'http_request_duration_seconds_count{method="GET",route="/v1/pets"}';
    for (let i = 0; i < 3; i++) {
      metrics.request('GET', '/v1/pets', 200, 0.001);
      metrics.rateLimitDecision('admitted');
    }
    let text = await metrics.registry.metrics();
    expect([sample(text, ok), sample(text, admitted), sample(text, count)]).to.deep.equal([3, 3, 3]);
    text = await metrics.registry.metrics();
    expect([sample(text, ok), sample(text, admitted)], 'a second scrape adds nothing').to.deep.equal([3, 3]);
    metrics.request('GET', '/v1/pets', 200, 0.001);
    metrics.request('GET', '/v1/pets', 404, 0.001);
    metrics.rateLimitDecision('temporarily_banned');
    text = await metrics.registry.metrics();
    expect(sample(text, ok)).to.equal(4);
    expect(sample(text, 'http_requests_total{method="GET",route="/v1/pets",status="404"}')).to.equal(1);
    expect(sample(text, 'petstore_rate_limit_decisions_total{outcome="temporarily_banned"}')).to.equal(1);
    expect(sample(text, count)).to.equal(5);
  });
});
