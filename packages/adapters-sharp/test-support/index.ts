// Test support of @petstore/adapters-sharp: real images made with sharp for the tests of the photo operations.
export {
  testImage,
  animatedWebp,
  animatedPng,
  apngFrameColour,
  flatPng,
  pngChunks,
  withPngChunk,
  pngBomb,
  describeImage,
  decodesWhole,
  containsAny,
  GPS_TRACES,
  type TestFormat,
  type TestImageOptions,
} from './images.js';
