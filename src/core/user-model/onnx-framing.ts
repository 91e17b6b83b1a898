/**
 * Whether a file's first bytes are framed as an ONNX graph: a protobuf `ModelProto` whose first field is its
 * `ir_version` (field 1, a varint; protobuf writers emit fields in number order and ONNX requires it), followed by
 * well-formed fields whose declared lengths fit in the file. A JSON or text file renamed `.onnx`, an HTML error page,
 * an external data file or a truncated download is refused here, in one line, before the runtime sees it (the runtime
 * would answer "protobuf parsing failed" with an error code). Pure: the page reads the head of the file.
 */

/** How many bytes of a graph's head the page reads for this check. */
export const ONNX_HEAD_BYTES = 64 * 1024;

/** ModelProto's fields and their wire types (onnx.proto): a known field with another wire type is not ONNX. */
const MODEL_FIELDS: ReadonlyMap<number, number> = new Map([
  [1, 0], // ir_version
  [2, 2], // producer_name
  [3, 2], // producer_version
  [4, 2], // domain
  [5, 0], // model_version
  [6, 2], // doc_string
  [7, 2], // graph
  [8, 2], // opset_import
  [14, 2], // metadata_props
  [20, 2], // training_info
  [25, 2], // functions
]);

/** The newest IR version this check accepts, with room for versions after ONNX 1.18's IR 11. */
const MAX_IR_VERSION = 64;

const EXPECTED = 'an ONNX graph (a protobuf ModelProto that starts with its ir_version)';

/** What the first bytes look like, for the one line (never quoting the bytes themselves). */
function lookslike(head: Uint8Array): string {
  let i = 0;
  while (i < head.length && [0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].includes(head[i])) i++;
  const first = head[i];
  if (first === 0x7b || first === 0x5b) return 'it starts like JSON';
  if (first === 0x3c) return 'it starts like HTML or XML';
  if (head[0] === 0x50 && head[1] === 0x4b) return 'it starts like a ZIP archive';
  const printable = head
    .subarray(0, 64)
    .every((b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b < 0x7f));
  return printable ? 'it starts like text' : 'its bytes are not a ModelProto';
}

/** A varint at `at`: its value (up to 2^53) and where it ends, or null when it runs past the head or is too long. */
function varint(head: Uint8Array, at: number): { value: number; end: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = at; i < head.length && i < at + 10; i++) {
    value += (head[i] & 0x7f) * scale;
    scale *= 128;
    if ((head[i] & 0x80) === 0) return value <= Number.MAX_SAFE_INTEGER ? { value, end: i + 1 } : null;
  }
  return null;
}

/**
 * Checks the framing of a graph file's head; null when it is framed as an ONNX graph, else one line saying what was
 * expected and what the file looks like.
 * @param head the file's first bytes (up to `ONNX_HEAD_BYTES`; the whole file when smaller)
 * @param totalBytes the file's size
 */
export function onnxFramingProblem(head: Uint8Array, totalBytes: number): string | null {
  const refuse = (what: string) => `expected ${EXPECTED}, but ${what}`;
  if (totalBytes === 0 || head.length === 0) return refuse('the file is empty');
  let at = 0;
  let fields = 0;
  let graph = false;
  while (at < head.length) {
    const tag = varint(head, at);
    // A tag cut off at the end of the head is fine when the file goes on.
    if (tag === null) return head.length < totalBytes && at > head.length - 10 ? null : refuse(lookslike(head));
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    const expectedWire = MODEL_FIELDS.get(field);
    if (field === 0 || ![0, 1, 2, 5].includes(wire) || (expectedWire !== undefined && expectedWire !== wire))
      return refuse(lookslike(head));
    if (fields === 0 && field !== 1) return refuse(lookslike(head));
    at = tag.end;
    if (wire === 0) {
      const value = varint(head, at);
      if (value === null) return head.length < totalBytes ? null : refuse('it ends inside a field');
      if (field === 1 && (value.value < 1 || value.value > MAX_IR_VERSION))
        return refuse(`its ir_version is ${value.value}`);
      at = value.end;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
    } else {
      const length = varint(head, at);
      if (length === null) return head.length < totalBytes ? null : refuse('it ends inside a field');
      // Offsets in the file: a field may run past the head, never past the file.
      if (length.end + length.value > totalBytes) return refuse('a field runs past the end of the file (truncated?)');
      if (field === 7) graph = true;
      at = length.end + length.value;
    }
    fields++;
  }
  if (at > totalBytes) return refuse('a field runs past the end of the file (truncated?)');
  // The whole file was walked: it must hold a graph.
  if (head.length >= totalBytes && !graph) return refuse('it holds no graph');
  return null;
}
