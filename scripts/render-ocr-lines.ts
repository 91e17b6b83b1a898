/**
 * Renders the OCR fixed input once: a few text lines drawn in headless Chromium (a 2D canvas, DejaVu Sans at 32 px,
 * black on white, 48 px high, 2 px left margin: the height PP-OCRv4 recognition takes), each line as wide as its text
 * plus 4 px (its `widths` entry), stored in one block as wide as the widest line as 8-bit grey pixels in `public/inputs/ocr-lines-3x48.json` (`drb.ocr-lines-input.v1`,
 * src/core/catalog/trained-inputs.ts), with the catalog's pin of that input refreshed.
 *
 * Font rasterisation differs between machines and browser versions, so this is not part of `npm run fixtures`: the
 * committed pixels are the input, rendered once (Debian's Chromium and fonts-dejavu here), and every run reads those
 * bytes. Run it again only to change the lines: `node --import tsx scripts/render-ocr-lines.ts`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { base64Text, OCR_LINES_SCHEMA, OcrLinesInput } from '../src/core/catalog/trained-inputs.ts';
import { launchChromium } from '../src/node/chromium.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The lines: Latin letters, digits and punctuation PP-OCRv4's dictionary holds (each decodes exactly, checked). */
const LINES = ['Hello 2024', 'ONNX 1.30', 'WebGPU'];
const HEIGHT = 48;
const FONT = '32px "DejaVu Sans"';
const INPUT_ID = 'ocr-lines-3x48';
const INPUT_PATH = `inputs/${INPUT_ID}.json`;

const browser = await launchChromium();
try {
  const page = await browser.context.newPage();
  await page.setContent('<!doctype html><canvas></canvas>');
  const rendered = await page.evaluate(
    ({ lines, height, font }) => {
      const canvas = document.querySelector('canvas')!;
      const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
      ctx.font = font;
      const widths = lines.map((text) => Math.ceil(ctx.measureText(text).width) + 4);
      const width = Math.max(...widths);
      canvas.width = width;
      canvas.height = height;
      const grey: number[] = [];
      for (const text of lines) {
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, width, height);
        ctx.fillStyle = '#000';
        ctx.font = font;
        ctx.textBaseline = 'middle';
        ctx.fillText(text, 2, 25);
        const data = ctx.getImageData(0, 0, width, height).data;
        for (let i = 0; i < data.length; i += 4) grey.push(data[i]);
      }
      return { width, widths, grey, userAgent: navigator.userAgent };
    },
    { lines: LINES, height: HEIGHT, font: FONT },
  );
  const artifact = OcrLinesInput.parse({
    schema: OCR_LINES_SCHEMA,
    id: INPUT_ID,
    height: HEIGHT,
    width: rendered.width,
    widths: rendered.widths,
    expected: LINES,
    pixels_base64: base64Text(Uint8Array.from(rendered.grey)),
    rendering: `scripts/render-ocr-lines.ts: a 2D canvas, ${FONT} black on white, left margin 2 px, baseline middle at 25 px, each line's width its text's plus 4 px (padded when read); rendered once in ${rendered.userAgent.replace(/HeadlessChrome\/(\d+)[.\d]*/, 'HeadlessChrome/$1')}`,
  });
  const bytes = new TextEncoder().encode(`${JSON.stringify(artifact)}\n`);
  writeFileSync(`${ROOT}public/${INPUT_PATH}`, bytes);
  const catalogPath = `${ROOT}src/catalog/catalog.json`;
  const catalog = JSON.parse(readFileSync(catalogPath, 'utf8')) as {
    version: number;
    inputs: Array<{ id: string; path: string; bytes: number; sha256: string; notes: string | null }>;
  };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const entry = catalog.inputs.find((i) => i.id === INPUT_ID);
  if (!entry) throw new Error(`the catalog has no input ${INPUT_ID}: add its entry first`);
  if (entry.sha256 !== sha256 || entry.bytes !== bytes.byteLength) {
    entry.bytes = bytes.byteLength;
    entry.sha256 = sha256;
    catalog.version += 1;
    writeFileSync(catalogPath, `${JSON.stringify(catalog, null, 2)}\n`);
  }
  process.stdout.write(
    `wrote public/${INPUT_PATH} (${bytes.byteLength} bytes, ${rendered.width} px wide, SHA-256 ${sha256})\n`,
  );
} finally {
  await browser.close();
}
