/**
 * The `Link` header of a page that has a next one (docs/rules.md §2, RFC 8288): the list's path with
 * the same page size, the same filters (those given, in the order given) and the page's cursor.
 * Every list builds its link here, from the filters it passed to its use case, so a filter bound
 * into the cursor's scope cannot be left out of the URL that carries the cursor.
 */
export const nextLink = (
  path: string,
  limit: number,
  filters: Readonly<Record<string, string | number | undefined>>,
  cursor: string,
): string => {
  let query = `limit=${limit}`;
  for (const [name, value] of Object.entries(filters))
    if (value !== undefined) query += `&${name}=${encodeURIComponent(String(value))}`;
  return `<${path}?${query}&cursor=${cursor}>; rel="next"`;
};
