// mocha's settings for every run. The files are not listed here: mocha would add them to any file named
// on its command line, and one file could not be run alone. `pnpm test` names every package's compiled
// tests (`tsc -b` builds them into dist/); `npx mocha <dist/…/x.test.js>` runs that file alone.
// `--enable-source-maps` (node's own, through mocha's `node-option`): a stack trace names the .ts line
// (tsc writes a .js.map beside every file), not the compiled one.
module.exports = {
  require: ['./scripts/mocha-setup.mjs'],
  reporter: './scripts/mocha-reporter.cjs',
  timeout: 20000,
  exit: true,
  'node-option': ['enable-source-maps'],
};
