import { expect } from 'chai';

/** What a refusal of the domain carries (an `Error` body without its HTTP status). */
interface Refusal {
  readonly code: string;
  readonly message: string;
  readonly field?: string;
}

/**
 * The rules of docs/rules.md §3 every refusal keeps: its code, the field that broke a rule, and a
 * message a person can act on, one that names the field it is about (a refusal of the whole body
 * says what to send instead). Answers the message for further checks.
 */
export const expectRefusal = (
  result: { readonly ok: boolean; readonly error?: unknown },
  code: string,
  field?: string,
  what = '',
): string => {
  expect(result.ok, `${what}: refused`).to.equal(false);
  const error = result.error as Refusal;
  expect(error.code, `${what}: code`).to.equal(code);
  expect(error.message, `${what}: a message`).to.be.a('string').that.matches(/\w{3}/);
  if (field !== undefined) {
    expect(error.field, `${what}: field`).to.equal(field);
    if (field !== 'body') expect(error.message, `${what}: the message names ${field}`).to.include(field);
  }
  return error.message;
};
