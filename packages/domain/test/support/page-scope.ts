/** Reads a page scope back into its list and filters (`pageScope`: `list?key=value&…`, values URI-encoded). */
export const readScope = (scope: string): { list: string; filters: Record<string, string> } => {
  const at = scope.indexOf('?');
  if (at < 0) return { list: scope, filters: {} };
  const filters: Record<string, string> = {};
  for (const pair of scope.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    filters[pair.slice(0, eq)] = decodeURIComponent(pair.slice(eq + 1));
  }
  return { list: scope.slice(0, at), filters };
};
