import type { ApiKeyStore, CategoryRepository, OrderRepository, PetListQuery, PetRepository } from '@petstore/domain';
import { forwardingCategories, forwardingKeys, forwardingOrders, forwardingPets } from '@petstore/domain/testing';
import {
  ApiKeyStoreInMemory,
  CategoryRepositoryInMemory,
  OrderRepositoryInMemory,
  PetRepositoryInMemory,
} from '../../src/index.js';

/**
 * Deliberately broken `list` methods, each a mistake an outside adapter could make in its query: the
 * exported contract suites must catch every one of them in their properties (test/contract-strength.test.ts).
 * Each defect turns the query a list gets into another one, or the rows it answers into others.
 */
export interface ListDefect {
  readonly name: string;
  /** The position the store is asked to list after, instead of the one it was given. */
  readonly after?: (afterId: number) => number;
  /** The row count the store is asked for, instead of the one it was given. */
  readonly limit?: (limit: number) => number;
  /** What is done to the rows the store answered. */
  readonly rows?: <T>(rows: readonly T[], limit: number) => readonly T[];
}

export const LIST_DEFECTS: readonly ListDefect[] = [
  { name: 'one row too many', limit: (limit) => limit + 1 },
  { name: 'one row short', rows: (rows, limit) => (rows.length === limit && limit > 1 ? rows.slice(0, -1) : rows) },
  { name: 'afterId ignored', after: () => 0 },
  { name: 'the afterId row included', after: (afterId) => Math.max(0, afterId - 1) },
  { name: 'descending order', rows: (rows) => [...rows].reverse() },
];

const query = <Q extends { readonly afterId: number; readonly limit: number }>(defect: ListDefect, q: Q): Q => ({
  ...q,
  afterId: defect.after === undefined ? q.afterId : defect.after(q.afterId),
  limit: defect.limit === undefined ? q.limit : defect.limit(q.limit),
});
const rows = <T>(defect: ListDefect, answer: readonly T[], limit: number): readonly T[] =>
  defect.rows === undefined ? answer : defect.rows(answer, limit);

/** `query` for a pet list: the position of an ascending id order is the one moved (the other orders keep theirs). */
const petQuery = (defect: ListDefect, q: PetListQuery): PetListQuery => {
  const { order } = q;
  if (order.sort !== 'id') return { ...q, limit: defect.limit === undefined ? q.limit : defect.limit(q.limit) };
  const { afterId, limit } = query(defect, { afterId: order.after ?? 0, limit: q.limit });
  return { ...q, limit, order: afterId === 0 ? { sort: 'id' } : { sort: 'id', after: afterId } };
};

export const brokenPets = (defect: ListDefect): PetRepository => {
  const inner = new PetRepositoryInMemory();
  return {
    ...forwardingPets(inner),
    list: async (q) => {
      const { pets, shuffleKeys } = await inner.list(petQuery(defect, q));
      // A shuffle's keys go as their pets do.
      return {
        pets: rows(defect, pets, q.limit),
        ...(shuffleKeys === undefined ? {} : { shuffleKeys: rows(defect, shuffleKeys, q.limit) }),
      };
    },
  };
};

export const brokenCategories = (defect: ListDefect): CategoryRepository => {
  const inner = new CategoryRepositoryInMemory();
  return {
    ...forwardingCategories(inner),
    list: async (q) => rows(defect, await inner.list(query(defect, q)), q.limit),
  };
};

export const brokenOrders = (defect: ListDefect): OrderRepository => {
  const inner = new OrderRepositoryInMemory();
  return {
    ...forwardingOrders(inner),
    list: async (q) => rows(defect, await inner.list(query(defect, q)), q.limit),
  };
};

export const brokenKeys = (defect: ListDefect): ApiKeyStore => {
  const inner = new ApiKeyStoreInMemory();
  return {
    ...forwardingKeys(inner),
    list: async (afterPosition, limit) => {
      const q = query(defect, { afterId: afterPosition, limit });
      return rows(defect, await inner.list(q.afterId, q.limit), limit);
    },
  };
};
