// The page's settings: fill in `api` and `key` for your site (README.md beside this file says how).
// While `api` or `key` is empty, the page takes it from its address instead: ?api=…&key=…
export default {
  /** The API's base address, ending in /v1: 'https://api.example.org/v1'. */
  api: '',
  /** A publishable key (pk_…) that lists this page's origin. Never a secret key (pet_…). */
  key: '',
  /** The name in the page's header. */
  shelter: 'Hillside Animal Shelter',
  /** Pets per page (1 to 100); "Show more" loads the next page. */
  pageSize: 12,
};
