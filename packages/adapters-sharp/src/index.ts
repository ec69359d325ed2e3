// Public API of @petstore/adapters-sharp: the domain's ImageProcessor port on sharp (libvips).
export { SharpImageProcessor, type SharpImageProcessorOptions } from './sharp-image-processor.js';
