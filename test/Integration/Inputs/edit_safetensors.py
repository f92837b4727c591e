#!/usr/bin/env python3
"""Edits a .safetensors file for refusal tests (standard library only).

  edit_safetensors.py IN OUT set NAME INDEX VALUE   set one integer element
  edit_safetensors.py IN OUT setf NAME INDEX VALUE  set one F32 element (nan ok)
  edit_safetensors.py IN OUT drop NAME              remove a tensor
  edit_safetensors.py IN OUT to-f32 NAME            widen a bf16 tensor to f32
"""
import json
import struct
import sys

INT_FORMATS = {"I32": "<i", "I64": "<q"}


def read(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = [info["dtype"], info["shape"], bytearray(data[begin:end])]
    return tensors


def write(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        dtype, shape, blob = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(bytes(blob))
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(argv):
    src, dst, op = argv[1], argv[2], argv[3]
    tensors = read(src)
    if op == "set":
        name, index, value = argv[4], int(argv[5]), int(argv[6])
        dtype, _, blob = tensors[name]
        fmt = INT_FORMATS[dtype]
        size = struct.calcsize(fmt)
        blob[index * size:(index + 1) * size] = struct.pack(fmt, value)
    elif op == "setf":
        name, index, value = argv[4], int(argv[5]), float(argv[6])
        dtype, _, blob = tensors[name]
        assert dtype == "F32"
        blob[index * 4:(index + 1) * 4] = struct.pack("<f", value)
    elif op == "drop":
        del tensors[argv[4]]
    elif op == "to-f32":
        dtype, shape, blob = tensors[argv[4]]
        assert dtype == "BF16"
        words = struct.unpack("<%dH" % (len(blob) // 2), bytes(blob))
        tensors[argv[4]] = ["F32", shape,
                            bytearray(struct.pack("<%dI" % len(words),
                                                  *[w << 16 for w in words]))]
    else:
        sys.exit("unknown edit " + op)
    write(dst, tensors)


if __name__ == "__main__":
    main(sys.argv)
