// Real PNG images of a friendly animal face (cat, dog or rabbit) on a warm background, drawn pixel
// by pixel and encoded with node:zlib: photos a shelter's page can show (the page's test uploads
// them), without checking any image into the repository.
import { crc32, deflateSync } from 'node:zlib';

export type Kind = 'cat' | 'dog' | 'rabbit';

type Rgb = readonly [number, number, number];

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
};

/** An RGB PNG of `width` × `height` from `pixel(x, y)`. */
const png = (width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer => {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), row + 1 + x * 3);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

/** Inside the ellipse centred on (cx, cy) with radii rx, ry (all in units of the image's height). */
const inEllipse = (x: number, y: number, cx: number, cy: number, rx: number, ry: number): boolean =>
  ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;

/** Inside the triangle a, b, c. */
const inTriangle = (x: number, y: number, [a, b, c]: readonly (readonly [number, number])[]): boolean => {
  const side = (p: readonly [number, number], q: readonly [number, number]) =>
    (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]);
  const [s1, s2, s3] = [side(a!, b!), side(b!, c!), side(c!, a!)];
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
};

const EYE: Rgb = [46, 38, 33];
const NOSE: Rgb = [150, 80, 70];

/** A portrait PNG (4:3): the animal's face in `fur`, on a soft `background` that fades to white. */
export const portrait = (kind: Kind, fur: Rgb, background: Rgb, width = 800, height = 600): Buffer =>
  png(width, height, (px, py) => {
    // Coordinates in units of the height, the face centred.
    const x = (px - width / 2) / height;
    const y = py / height - 0.55;
    const inner: Rgb = [Math.min(255, fur[0] + 40), Math.min(255, fur[1] + 40), Math.min(255, fur[2] + 40)];
    const ears =
      kind === 'cat'
        ? inTriangle(x, y, [
            [-0.26, -0.08],
            [-0.2, -0.42],
            [-0.04, -0.2],
          ]) ||
          inTriangle(x, y, [
            [0.26, -0.08],
            [0.2, -0.42],
            [0.04, -0.2],
          ])
        : kind === 'rabbit'
          ? inEllipse(x, y, -0.1, -0.38, 0.06, 0.22) || inEllipse(x, y, 0.1, -0.38, 0.06, 0.22)
          : inEllipse(x, y, -0.25, 0.02, 0.08, 0.18) || inEllipse(x, y, 0.25, 0.02, 0.08, 0.18);
    if (inEllipse(x, y, -0.09, -0.03, 0.035, 0.045) || inEllipse(x, y, 0.09, -0.03, 0.035, 0.045)) return EYE;
    if (inEllipse(x, y, 0, 0.07, 0.04, 0.028)) return NOSE;
    if (inEllipse(x, y, 0, 0.1, 0.12, 0.08)) return inner;
    if (inEllipse(x, y, 0, 0.02, 0.25, 0.22) || ears) return fur;
    const fade = Math.min(1, Math.max(0, py / height));
    return [0, 1, 2].map((i) => Math.round(background[i]! + (255 - background[i]!) * fade * 0.5)) as unknown as Rgb;
  });
