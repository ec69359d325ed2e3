import { expect } from 'chai';
import fc from 'fast-check';
import { pino } from 'pino';
import type { RequestLogFields } from '@petstore/adapters-http';
import { requestLine } from '../src/log-destination.js';

/** What pino itself writes for `logger.info(fields, 'request')` with the server's base, at time `time`. */
const pinoLine = (fields: RequestLogFields, time: number): string => {
  let written = '';
  const logger = pino(
    { level: 'info', base: { service: 'petstore' }, timestamp: () => `,"time":${time}` },
    { write: (line: string) => void (written = line) },
  );
  logger.info({ ...fields }, 'request');
  return written;
};

/** Well-formed Unicode (no lone surrogate): `encodeURIComponent` throws on anything else. */
const wellFormed = (text: string): boolean => {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom('"', '\\', '\u0000', '\ud800', '\u2028', '::ffff:127.0.0.1', 'key_0123456789ab'),
);
const fieldsArb: fc.Arbitrary<RequestLogFields> = fc.record({
  requestId: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/), text),
  method: fc.oneof(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'M-SEARCH'), text),
  route: fc.oneof(
    fc.constant(null),
    fc.constantFrom('GET /v1/pets', 'POST /v1/pets/:petId/photos', 'GET /v1/pets/:petId'),
    text,
  ),
  status: fc.integer({ min: 100, max: 599 }),
  durationMs: fc.oneof(
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    fc.integer({ min: 0, max: 1e9 }).map((n) => n / 1000),
  ),
  subject: fc.oneof(fc.constant(null), text),
});

describe("the request log line (written without pino's serialiser)", () => {
  it('property: is exactly the line pino writes for the same fields, byte for byte (a lone surrogate: escaped, where pino writes it raw)', () => {
    fc.assert(
      fc.property(fieldsArb, fc.integer({ min: 0, max: 2 ** 42 }), (fields, time) => {
        const line = requestLine(fields, time);
        const texts = [fields.requestId, fields.method, fields.route ?? '', fields.subject ?? ''];
        if (texts.every(wellFormed)) expect(line).to.equal(pinoLine(fields, time));
        // pino copies a lone surrogate into the line as it is (stdout then writes U+FFFD); escaped, it survives.
        expect(JSON.parse(line)).to.deep.equal({ level: 30, time, service: 'petstore', ...fields, msg: 'request' });
        expect(line.endsWith('}\n')).to.equal(true);
      }),
      { numRuns: 1000 },
    );
  });
});
