/**
 * The frames an animated PNG (APNG) declares, read from its chunk headers alone (no pixel is
 * decoded, nothing is decompressed). libvips reads an APNG as a still of its default image and
 * reports one page, so the processor counts them itself (docs/rules.md §13: animated images are
 * refused, as animated WebP is).
 *
 * By the APNG specification a PNG is animated when an `acTL` chunk comes before its first `IDAT`
 * (one after it is ignored by every decoder, as any unknown ancillary chunk is); `num_frames`, its
 * first field, counts the frames. The `fcTL` chunks (one per frame) are counted too, so a file
 * whose `acTL` understates its frames still counts as many as a player would show. Without such an
 * `acTL` the answer is 1, whatever other chunks the file holds. The walk stops at `IEND`, at the
 * end of the bytes, or at a chunk whose declared length runs past them (the decoder refuses that).
 */
export const pngFrames = (png: Uint8Array): number => {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let declared: number | undefined;
  let controls = 0;
  let pastIdat = false;
  // After the 8-byte signature: chunks of a 4-byte length, a 4-byte type, the data and a 4-byte CRC.
  for (let at = 8; at + 8 <= png.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    const data = at + 8;
    if (type === 'IEND') break;
    if (type === 'IDAT') pastIdat = true;
    else if (type === 'acTL' && !pastIdat && declared === undefined && length >= 8 && data + 4 <= png.length)
      declared = view.getUint32(data);
    else if (type === 'fcTL') controls++;
    at = data + length + 4;
  }
  return declared === undefined ? 1 : Math.max(1, declared, controls);
};
