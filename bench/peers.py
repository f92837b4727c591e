"""Imports of the peers' calls from wheels installed with `pip install
--target DIR` on the GPU host (DESIGN.md, "Peers to measure against")."""

import os
import sys
import types


def import_flashinfer(path):
    """FlashInfer 0.7.2's chunk_gated_delta_rule from DIR. Under --target the
    cutlass DSL's .pth is not run (its dsl_packages go on the path here), and
    flashinfer/__init__.py imports every subsystem: gdn_prefill is imported
    under a bare parent package instead."""
    sys.path[:0] = [path, os.path.join(path, "nvidia_cutlass_dsl", "dsl_packages")]
    parent = types.ModuleType("flashinfer")
    parent.__path__ = [os.path.join(path, "flashinfer")]
    sys.modules["flashinfer"] = parent
    from flashinfer.gdn_prefill import chunk_gated_delta_rule
    return chunk_gated_delta_rule
