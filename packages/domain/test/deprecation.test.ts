// docs/rules.md §2 (Fetching one pet: deprecated): getPet carries `Deprecation: @1767225600`,
// `Sunset: Thu, 05 Dec 2030 00:00:00 GMT` and `Link: </v1/pets>; rel="successor-version"`, and from
// the sunset instant on it is gone. The Sunset value is an HTTP-date (RFC 9110 IMF-fixdate).
import { expect } from 'chai';
import fc from 'fast-check';
import { deprecationHeaders, GET_PET_DEPRECATION, httpDate, isSunset } from '../src/index.js';

const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** Instants from year 1000 to 9999: an IMF-fixdate has a four-digit year. */
const instantArb = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

describe('the deprecation of getPet (docs/rules.md §2)', () => {
  it('carries the three headers with exactly the values the rules give', () => {
    expect(deprecationHeaders(GET_PET_DEPRECATION)).to.deep.equal({
      Deprecation: '@1767225600',
      Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
      Link: '</v1/pets>; rel="successor-version"',
    });
  });

  it('is gone from the sunset instant on, not a millisecond before', () => {
    const sunset = Date.UTC(2030, 11, 5);
    expect(isSunset(GET_PET_DEPRECATION, sunset - 1)).to.equal(false);
    expect(isSunset(GET_PET_DEPRECATION, sunset)).to.equal(true);
    expect(isSunset(GET_PET_DEPRECATION, sunset + 1)).to.equal(true);
  });

  it('property: an HTTP-date is the IMF-fixdate of the instant (whole seconds, UTC), whatever the day and month', () => {
    fc.assert(
      fc.property(instantArb, (ms) => {
        const text = httpDate(ms);
        expect(text).to.match(IMF_FIXDATE);
        expect(text, 'the ECMAScript IMF-fixdate').to.equal(new Date(ms).toUTCString());
        expect(Date.parse(text)).to.equal(Math.floor(ms / 1000) * 1000);
      }),
    );
    // Every day name and month name, once each.
    for (let day = 0; day < 7; day++)
      expect(httpDate(Date.UTC(2030, 11, 1 + day))).to.equal(new Date(Date.UTC(2030, 11, 1 + day)).toUTCString());
    for (let month = 0; month < 12; month++)
      expect(httpDate(Date.UTC(2031, month, 9, 8, 7, 6))).to.equal(
        new Date(Date.UTC(2031, month, 9, 8, 7, 6)).toUTCString(),
      );
  });

  it('property: the headers of any deprecation: Unix seconds of its start, the HTTP-date of its sunset, the successor link', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Date.UTC(9999, 0, 1) }),
        instantArb,
        fc.constantFrom('/v1/pets', '/v2/pets', '/v1/categories'),
        (deprecatedAt, sunsetAt, successor) => {
          expect(deprecationHeaders({ deprecatedAt, sunsetAt, successor })).to.deep.equal({
            Deprecation: `@${Math.floor(deprecatedAt / 1000)}`,
            Sunset: new Date(sunsetAt).toUTCString(),
            Link: `<${successor}>; rel="successor-version"`,
          });
        },
      ),
    );
  });
});
