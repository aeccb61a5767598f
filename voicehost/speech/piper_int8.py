"""A piper voice's weights made 8-bit, once, where it speaks from (piper_voice.py).

Only the convolutions of the text encoder and of the flow are made 8-bit: they hold 13.4 of
joe's 15.7 million weights. The decoder, which makes the sound itself, stays as it was. The
host's process then holds the voice in 51 MB instead of 90, and the listener understands it as
well as before (docs/voice.md).

It runs as a child process, `python -m voicehost.speech.piper_int8 SOURCE TARGET`: onnx holds
the whole model several times over while it works, memory the host must not keep.
"""

from __future__ import annotations

import sys
from pathlib import Path

EIGHT_BIT = ("/enc_p/", "/flow/")  # where the convolutions made 8-bit are, by node name


def make_8bit(source: Path, target: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    convolutions = [node.name for node in onnx.load(str(source)).graph.node
                    if node.op_type == "Conv"]
    quantize_dynamic(source, target, weight_type=QuantType.QUInt8,
                     op_types_to_quantize=["Conv"],
                     nodes_to_exclude=[name for name in convolutions
                                       if not name.startswith(EIGHT_BIT)])


if __name__ == "__main__":
    make_8bit(Path(sys.argv[1]), Path(sys.argv[2]))
