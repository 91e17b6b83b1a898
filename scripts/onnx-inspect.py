"""Checks ONNX files with the reference `onnx` package and prints what they declare, as one JSON object.

Usage: python3 scripts/onnx-inspect.py MODEL.onnx [MODEL.onnx ...]

For each file: onnx.checker.check_model (full check, external data read from the file's folder), then the graph's
inputs and outputs (name, element type name, dims: ints or symbolic names), the operator types per domain, the
opset imports, the external data files its initializers reference, and every contrib-domain node with its attributes. Exit 0 with the JSON on stdout; exit 1 with
one line per file that fails the check. Used by test/unit/onnx-fixtures-python.test.ts (Debian: python3-onnx).
"""
import json
import os
import sys

import onnx
from onnx import TensorProto


def dims(value_info):
    out = []
    for d in value_info.type.tensor_type.shape.dim:
        out.append(d.dim_value if d.HasField("dim_value") else d.dim_param)
    return out


def describe(path):
    model = onnx.load(path, load_external_data=False)
    # The check runs on an in-memory copy (external data read from the file's folder): given a path, onnx 1.12's
    # full check writes the inferred shapes back into the file it checks, and this script must never change a file.
    loaded = onnx.load(path, load_external_data=True)
    onnx.checker.check_model(loaded, full_check=True)
    external = sorted(
        {
            entry.value
            for tensor in model.graph.initializer
            if tensor.data_location == TensorProto.EXTERNAL
            for entry in tensor.external_data
            if entry.key == "location"
        }
    )
    return {
        "ir_version": model.ir_version,
        "opsets": {imp.domain or "ai.onnx": imp.version for imp in model.opset_import},
        "inputs": [
            {"name": i.name, "type": TensorProto.DataType.Name(i.type.tensor_type.elem_type), "dims": dims(i)}
            for i in model.graph.input
        ],
        "outputs": [
            {"name": o.name, "type": TensorProto.DataType.Name(o.type.tensor_type.elem_type), "dims": dims(o)}
            for o in model.graph.output
        ],
        "ops": sorted({(n.domain or "ai.onnx") + ":" + n.op_type for n in model.graph.node}),
        "external_data": external,
        # Contrib operators (com.microsoft) with their attributes: the quantization parameters a runtime must honour.
        "contrib_nodes": [
            {
                "op": n.op_type,
                "attributes": {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute},
            }
            for n in model.graph.node
            if n.domain not in ("", "ai.onnx")
        ],
        "onnx_version": onnx.__version__,
    }


def main(paths):
    result = {}
    failures = []
    for path in paths:
        try:
            result[path] = describe(path)
        except Exception as error:  # one line per bad file, the reason first line only
            failures.append("%s: %s" % (path, str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__))
    if failures:
        for line in failures:
            print(line, file=sys.stderr)
        return 1
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
