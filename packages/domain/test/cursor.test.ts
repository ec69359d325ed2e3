// docs/rules.md §2 (Paging): the cursor of every list. The pager issues one spelling per position
// and listing; a cursor that was altered, made for another list or other filters, or spelled in any
// other way (padding, the standard base64 alphabet, non-zero unused bits, white space, leading
// zeros, a sign or an exponent, extra fields, another version) is refused with a 400 on `cursor`.
import { expect } from 'chai';
import fc from 'fast-check';
import type { Pet } from '../src/index.js';
import { assemblePage, byId, decodeCursor, encodeCursor, LIMIT_MAX, pageScope, readPageRequest } from '../src/index.js';
import { MAX_CURSOR_LENGTH } from '../src/pagination/cursor.js';
import { expectRefusal } from './support/refusals.js';
import { readScope } from './support/page-scope.js';

/** The text a cursor spells, read by a lenient base64 decoder (Node's: it takes padding, either alphabet, white space). */
const textOf = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('latin1');
/** The canonical base64url spelling of `text` (no padding). */
const spell = (text: string): string => Buffer.from(text, 'latin1').toString('base64url');
/** The checksum field the service writes for `position` in `scope` (also for positions it never issues). */
const sumFor = (position: number, scope: string): string => textOf(encodeCursor(position, scope)).split('.')[2]!;

const positionArb = fc.oneof(
  fc.integer({ min: 1, max: 1000 }),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  fc.constantFrom(1, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER),
);
const scopeArb = fc
  .record({
    list: fc.constantFrom('pets', 'categories', 'orders', 'keys'),
    status: fc.option(fc.constantFrom('available', 'pending', 'sold', 'placed'), { nil: undefined }),
    categoryId: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
    owner: fc.option(fc.constantFrom('key_0123456789ab', '*', 'a b&c=d'), { nil: undefined }),
  })
  .map(({ list, ...filters }) => pageScope(list, filters));

/** Other spellings of the very text the service issued (a lenient decoder reads them as the same position). */
const respellings = (issued: string): string[] => {
  const bytes = Buffer.from(textOf(issued), 'latin1');
  const standard = bytes.toString('base64');
  const padded = issued + '='.repeat((4 - (issued.length % 4)) % 4 || 1);
  const out = [
    padded,
    standard,
    standard.replace(/=+$/, ''),
    ...[' ', '\n', '\t', '\r', '\u00a0'].flatMap((ws) => [
      ws + issued,
      issued + ws,
      issued.slice(0, 4) + ws + issued.slice(4),
    ]),
  ];
  if (issued.length % 4 !== 0) {
    // The last character of a partial group carries unused low bits: setting one spells the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(issued.at(-1)!);
    out.push(issued.slice(0, -1) + alphabet[last + 1]!);
  }
  return out;
};

/** Texts that name the same position with a checksum that fits it, written otherwise than the service does. */
const rewordings = (position: number, scope: string): string[] => {
  const sum = sumFor(position, scope);
  const n = String(position);
  const out = [
    `c2.0${n}.${sum}`,
    `c2.00${n}.${sum}`,
    `c2.+${n}.${sum}`,
    `c2.${n}e0.${sum}`,
    `c2.${n}.0.${sum}`,
    `c2. ${n}.${sum}`,
    `c2.${n} .${sum}`,
    `c2.${n}.${sum} `,
    ` c2.${n}.${sum}`,
    `c2.${n}.${sum}.`,
    `c2.${n}.${sum}.x`,
    `c2.${n}.${sum}.${sum}`,
    `c2.c2.${n}.${sum}`,
    `c2.${n}.0${sum}`,
    `c2.${n}.${sum.toUpperCase()}`,
    `C2.${n}.${sum}`,
    `c1.${n}.${sum}`,
    `c3.${n}.${sum}`,
    `.${n}.${sum}`,
    `${n}.${sum}`,
    `c2.0x${position.toString(16)}.${sum}`,
  ];
  if (position % 10 === 0) out.push(`c2.${position / 10}e1.${sum}`);
  return out;
};

describe('cursors (docs/rules.md §2, Paging)', () => {
  it('property: every cursor the pager issues is canonical base64url within the query bound, and decodes to the position its page ends at', () => {
    fc.assert(
      fc.property(fc.uniqueArray(positionArb, { minLength: 2, maxLength: 8 }), scopeArb, (ids, scope) => {
        const rows: Pet[] = ids
          .sort((a, b) => a - b)
          .map((id) => ({ id, name: 'x', categoryId: 1, status: 'available' }));
        const limit = rows.length - 1;
        const page = assemblePage(rows, limit, scope, byId);
        const cursor = page.nextCursor!;
        expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
        expect(cursor.length).to.be.at.most(MAX_CURSOR_LENGTH);
        expect(spell(textOf(cursor)), 'one spelling').to.equal(cursor);
        expect(decodeCursor(cursor, scope)).to.equal(rows[limit - 1]!.id);
        expect(readPageRequest({ cursor, limit: LIMIT_MAX }, scope)).to.deep.equal({
          ok: true,
          value: { limit: LIMIT_MAX, afterId: rows[limit - 1]!.id },
        });
      }),
    );
  });

  it('property: every other spelling of an issued cursor (padding, standard alphabet, unused bits, white space) is refused', () => {
    fc.assert(
      fc.property(positionArb, scopeArb, (position, scope) => {
        const issued = encodeCursor(position, scope);
        for (const other of respellings(issued).filter((spelling) => spelling !== issued)) {
          expect(textOf(other), 'a lenient decoder reads it as the same text').to.equal(textOf(issued));
          expect(decodeCursor(other, scope), JSON.stringify(other)).to.equal(undefined);
          expectRefusal(
            readPageRequest({ cursor: other }, scope),
            'validation_failed',
            'cursor',
            JSON.stringify(other),
          );
        }
      }),
    );
  });

  it('property: a text naming the same position with its own checksum, but worded otherwise (zeros, sign, exponent, spaces, extra fields, version), is refused', () => {
    fc.assert(
      fc.property(positionArb, scopeArb, (position, scope) => {
        const issued = encodeCursor(position, scope);
        for (const text of rewordings(position, scope)) {
          const cursor = spell(text);
          if (cursor === issued) continue; // e.g. an upper-cased checksum without letters
          expect(decodeCursor(cursor, scope), text).to.equal(undefined);
        }
      }),
    );
  });

  it('refuses positions no page can end at: 0 (the start) and beyond 2^53 − 1, even with a fitting checksum', () => {
    const scope = pageScope('pets');
    const beyond = 2 ** 53;
    for (const text of [
      `c2.0.${sumFor(0, scope)}`,
      `c2.${beyond}.${sumFor(beyond, scope)}`,
      // 9007199254740993 reads as the number 2^53: the checksum of 2^53 fits it.
      `c2.9007199254740993.${sumFor(beyond, scope)}`,
      `c2.9999999999999999.${sumFor(1e16, scope)}`,
      `c2.12345678901234567.${sumFor(Number('12345678901234567'), scope)}`,
    ]) {
      expect(decodeCursor(spell(text), scope), text).to.equal(undefined);
    }
    expect(decodeCursor(encodeCursor(Number.MAX_SAFE_INTEGER, scope), scope)).to.equal(Number.MAX_SAFE_INTEGER);
  });

  it('refuses texts that are no base64url at all, and cursors that are not strings, without throwing', () => {
    const scope = pageScope('pets');
    for (const text of [
      '',
      '=',
      'A',
      'AAAAA',
      '****',
      'YzIu*S5meWJtMHd2Z2p4',
      'x'.repeat(MAX_CURSOR_LENGTH + 1),
      encodeCursor(1, scope) + 'A',
    ]) {
      expect(decodeCursor(text, scope), text).to.equal(undefined);
    }
    for (const cursor of [null, 7, true, {}, ['YzIuMS5meWJtMHd2Z2p4'], '']) {
      expectRefusal(readPageRequest({ cursor }, scope), 'validation_failed', 'cursor', JSON.stringify(cursor));
    }
  });

  it('keeps the spelling of the cursors it issued (a link a client holds stays valid across a restart or a release)', () => {
    // Issued by this service's cursor format `c2`; changing the format would strand every link clients hold.
    const issued: Array<[number, string, string]> = [
      [1, pageScope('pets'), 'YzIuMS5meWJtMHd2Z2p4'],
      [20, pageScope('pets', { status: 'sold', categoryId: 3 }), 'YzIuMjAuMWxvancwdGIwZzE'],
      [2, pageScope('categories'), 'YzIuMi4yNThhYjF3Z3N1ag'],
      [Number.MAX_SAFE_INTEGER, pageScope('categories'), 'YzIuOTAwNzE5OTI1NDc0MDk5MS4yYmxpczdkanJhZg'],
      [42, pageScope('orders', { owner: 'key_0123456789ab', status: 'placed' }), 'YzIuNDIuM21nMGxnZmY0'],
      [7, pageScope('keys'), 'YzIuNy5pM242YTN4M2d3'],
    ];
    for (const [position, scope, cursor] of issued) {
      expect(encodeCursor(position, scope), scope).to.equal(cursor);
      expect(decodeCursor(cursor, scope), scope).to.equal(position);
    }
  });
});

describe('the scope a cursor is bound to (docs/rules.md §2: the list and its filters)', () => {
  const keyArb = fc.stringMatching(/^[a-z][A-Za-z]{0,3}$/);

  it('property: a scope names exactly its list and its present filters (so two listings never share one)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('pets', 'categories', 'orders', 'keys'),
        fc.dictionary(
          keyArb,
          fc.option(fc.oneof(fc.string(), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })), { nil: undefined }),
        ),
        (list, filters) => {
          const present = Object.fromEntries(
            Object.entries(filters).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
          );
          expect(readScope(pageScope(list, filters))).to.deep.equal({ list, filters: present });
        },
      ),
    );
  });

  it('tells filters apart that a looser joining would merge', () => {
    expect(pageScope('orders', { a: '1', ab: '2' })).to.not.equal(pageScope('orders', { a: '1a', b: '2' }));
    expect(pageScope('pets', { categoryId: 3, status: 'sold' })).to.equal('pets?categoryId=3&status=sold');
  });
});
