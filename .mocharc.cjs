// One mocha run over every package's compiled tests (`tsc -b` builds them into dist/).
module.exports = {
  spec: ['packages/*/dist/test/**/*.test.js', 'apps/*/dist/test/**/*.test.js'],
  require: ['./scripts/mocha-setup.mjs'],
  reporter: './scripts/mocha-reporter.cjs',
  timeout: 20000,
  exit: true,
};
