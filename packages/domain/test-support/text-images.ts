import type { EncodedImage, ImageFormat, ImageHeader, ImageProcessor } from '../src/index.js';
import { fitLongSide } from '../src/index.js';

const MAGIC = 'TIMG';

/**
 * A test double of the `ImageProcessor` port, for tests of the photo use case and stores that need
 * no image library: an "image" is one line of text, `TIMG <format> <width> <height> <frames>
 * <orientation>`, then any bytes. It follows the port's rules plainly (turn by orientation, scale
 * down to the long side, one frame, orientation 1 afterwards); a body whose bytes hold `BROKEN`
 * does not decode. The real adapter (sharp) has its own tests with real images.
 */
export class TextImageProcessor implements ImageProcessor {
  /** How many calls reached the processor (a refusal from the header must not decode). */
  normalised = 0;

  async inspect(bytes: Uint8Array): Promise<ImageHeader | undefined> {
    return parse(bytes)?.header;
  }

  async normalise(bytes: Uint8Array, format: ImageFormat, maxLongSide: number): Promise<EncodedImage | undefined> {
    this.normalised++;
    const parsed = parse(bytes);
    if (parsed === undefined || parsed.header.format !== format || parsed.rest.includes('BROKEN')) return undefined;
    const { width, height, orientation } = parsed.header;
    const turned = orientation >= 5 ? { width: height, height: width } : { width, height };
    const size = fitLongSide(turned.width, turned.height, maxLongSide);
    return { ...size, bytes: textImage({ format, ...size }, parsed.rest) };
  }

  async resize(bytes: Uint8Array, format: ImageFormat, width: number): Promise<EncodedImage> {
    const parsed = parse(bytes);
    if (parsed === undefined) throw new Error('resize: not a normalised test image');
    const height = Math.max(1, Math.round((parsed.header.height * width) / parsed.header.width));
    return { width, height, bytes: textImage({ format, width, height }, `${parsed.rest}@${width}`) };
  }
}

/** An image for `TextImageProcessor`: `payload` (text) after the header line. */
export const textImage = (
  image: {
    readonly format: string;
    readonly width: number;
    readonly height: number;
    readonly frames?: number;
    readonly orientation?: number;
  },
  payload = '',
): Uint8Array =>
  latin1Bytes(
    `${MAGIC} ${image.format} ${image.width} ${image.height} ${image.frames ?? 1} ${image.orientation ?? 1}\n${payload}`,
  );

/** The bytes of text of one-byte characters (test-support runs on any runtime: no TextEncoder assumed). */
export const latin1Bytes = (text: string): Uint8Array => Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 255);
const latin1Text = (bytes: Uint8Array): string => {
  let text = '';
  for (let i = 0; i < bytes.length; i += 4096) text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  return text;
};

const parse = (bytes: Uint8Array): { header: ImageHeader; rest: string } | undefined => {
  const text = latin1Text(bytes);
  const newline = text.indexOf('\n');
  const [magic, format, ...numbers] = (newline < 0 ? text : text.slice(0, newline)).split(' ');
  if (magic !== MAGIC || format === undefined || numbers.length !== 4 || !numbers.every((n) => /^[0-9]+$/.test(n)))
    return undefined;
  const [width, height, frames, orientation] = numbers.map(Number) as [number, number, number, number];
  return { header: { format, width, height, frames, orientation }, rest: newline < 0 ? '' : text.slice(newline + 1) };
};
