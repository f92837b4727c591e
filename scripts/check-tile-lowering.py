#!/usr/bin/env python3
"""Numerical check of the register-tile lowering on a GPU.

Two steps, on two machines:

  # where MLIR is (the development machine): compile the check kernels
  scripts/check-tile-lowering.py compile --gdn-opt build/bin/gdn-opt --out build/tile-checks

  # on the GPU machine (PyTorch, libcuda), carrying build/tile-checks
  scripts/check-tile-lowering.py run --dir build/tile-checks

`compile` lowers the check kernels (test/GPU/Inputs: wy-tiles.mlir, in the
layout IR; chunk-prepare.mlir, one chunk of the kernel's prepare stage,
given layouts by gdn-gpu-assign-layouts / -remove-layout-conversions and
outlined first) with gdn-gpu-tiles-to-ptx under both operand precisions,
and records each kernel's dynamic shared memory. `run` launches it through the CUDA driver API (one block of
one warpgroup) on fresh random inputs with a ragged tail, outputs poisoned
with NaN first, and compares against a float64 evaluation of the kernel's
definition on the same bf16 inputs:

  kk  = beta (.) (K K^T (.) exp(gamma_i - gamma_j)), j < i   (rows < n written)
  kv  = kk V
  upd = V^T K

and chunk_prepare's W, U, K decayed, Q decayed, Q K^T (.) D and gamma
against SPEC.md's chunked form (raw gates, sigmoid beta, l2norm). It fails
when an error exceeds its bound, when a row past the tail was written, or
when an element that must be written is still NaN.
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# (input file, kernel, operand precisions, passes before the lowering: the
# layout passes and the outlining for kernels written without layouts)
PREPARE = ("builtin.module(gdn-gpu-assign-layouts{num-warps=4},gdn-gpu-remove-layout-conversions,"
           "canonicalize,cse,gdn-gpu-outline{block-size=128})")
KERNELS = [
    ("test/GPU/Inputs/wy-tiles.mlir", "wy_tiles", ["bf16", "tf32"], None),
    ("test/GPU/Inputs/chunk-prepare.mlir", "chunk_prepare", ["bf16", "tf32"], PREPARE),
]
BLOCK_THREADS = 128


def compile_kernels(args):
    os.makedirs(args.out, exist_ok=True)
    for path, kernel, precisions, prepare in KERNELS:
        src = os.path.join(ROOT, path)
        if prepare:
            laid_out = os.path.join(args.out, kernel + "-layouts.mlir")
            subprocess.run([args.gdn_opt, src, f"--pass-pipeline={prepare}", "-o", laid_out],
                           check=True)
            src = laid_out
        for prec in precisions:
            name = f"{kernel}-{prec}"
            # One run of the pipeline: the PTX on stdout, and the kernel as
            # gdn-gpu-lower-tiles left it (with its shared-memory plan) on
            # stderr, so the size is the one the PTX was built with.
            run = subprocess.run(
                [args.gdn_opt, src, f"--gdn-gpu-tiles-to-ptx=mma-precision={prec}",
                 "--mlir-print-ir-after=gdn-gpu-lower-tiles"],
                check=True, capture_output=True, text=True)
            shared = int(re.search(r"gdn.shared_bytes_per_block = (\d+)", run.stderr).group(1))
            binary = run.stdout
            asm = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', binary).group(1)
            ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), asm)
            with open(os.path.join(args.out, name + ".ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(args.out, name + ".json"), "w") as f:
                json.dump({"kernel": kernel, "precision": prec, "shared_bytes": shared}, f)
            print(f"{name}: {ptx.count('wgmma.mma_async')} wgmma.mma_async, "
                  f"{shared} bytes of dynamic shared memory")
            if args.ptxas:
                assemble(args, os.path.join(args.out, name + ".ptx"))


def assemble(args, ptx):
    """ptxas must accept the PTX; with cuobjdump, the SASS must use HGMMA."""
    cubin = ptx[:-4] + ".cubin"
    log = subprocess.run([args.ptxas, "-arch=sm_90a", "-v", ptx, "-o", cubin],
                         capture_output=True, text=True)
    if log.returncode != 0:
        sys.exit(f"ptxas rejects {ptx}:\n{log.stderr}")
    used = re.search(r"Used (\d+) registers", log.stderr)
    spills = re.search(r"(\d+) bytes spill stores", log.stderr)
    print(f"  ptxas: {used.group(1)} registers, {spills.group(1)} bytes spill stores")
    if args.cuobjdump:
        sass = subprocess.run([args.cuobjdump, "-sass", cubin], check=True,
                              capture_output=True, text=True,
                              env=dict(os.environ, PATH=os.path.dirname(args.cuobjdump)
                                       + os.pathsep + os.environ.get("PATH", ""))).stdout
        hgmma = len(re.findall(r"\bHGMMA\.", sass))
        print(f"  SASS: {hgmma} HGMMA")
        if hgmma == 0:
            sys.exit(f"no HGMMA in the SASS of {cubin}")


class Driver:
    """The few CUDA driver calls the check needs, in PyTorch's context."""

    def __init__(self):
        import torch
        torch.zeros(1, device="cuda")
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.check(self.cu.cuInit(0), "cuInit")

    def check(self, res, what):
        if res != 0:
            s = ctypes.c_char_p()
            self.cu.cuGetErrorString(res, ctypes.byref(s))
            raise RuntimeError(f"{what}: CUresult {res} ({(s.value or b'?').decode()})")

    def load(self, ptx, kernel, shared):
        data = ctypes.create_string_buffer(ptx.encode() + b"\0")
        self.module = ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadData(ctypes.byref(self.module), data), "cuModuleLoadData")
        fn = ctypes.c_void_p()
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(fn), self.module, kernel.encode()),
                   "cuModuleGetFunction")
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
        self.check(self.cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                              ctypes.c_int(shared)), "cuFuncSetAttribute")
        return fn

    def launch(self, fn, shared, args):
        """Kernel memrefs as expanded descriptors (allocated and aligned
        pointer, offset, sizes, strides), index as i64, float as f32."""
        import torch
        holders = []
        for a in args:
            if isinstance(a, torch.Tensor):
                holders += [ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(a.data_ptr()),
                            ctypes.c_int64(0)]
                holders += [ctypes.c_int64(x) for x in a.shape]
                holders += [ctypes.c_int64(x) for x in a.stride()]
            elif isinstance(a, float):
                holders.append(ctypes.c_float(a))
            else:
                holders.append(ctypes.c_int64(a))
        params = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.check(self.cu.cuLaunchKernel(fn, 1, 1, 1, BLOCK_THREADS, 1, 1, shared, stream,
                                          params, None), "cuLaunchKernel")
        torch.cuda.synchronize()


def rel(got, ref):
    """Relative L2 error; absolute where the reference is zero."""
    import torch
    err = torch.linalg.norm(got.double() - ref).item()
    norm = torch.linalg.norm(ref).item()
    return err / norm if norm > 0 else err


def check_wy_tiles(driver, fn, shared, prec, n, seed):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    k = torch.nn.functional.normalize(torch.randn(64, 128, device=dev, generator=g), dim=1)
    k = k.to(torch.bfloat16)
    v = torch.randn(64, 128, device=dev, generator=g).to(torch.bfloat16)
    beta = torch.rand(64, device=dev, generator=g)
    gamma = torch.cumsum(-torch.rand(64, device=dev, generator=g) * 0.5, 0)
    kk_out = torch.full((64, 64), float("nan"), device=dev)
    kv_out = torch.full((64, 128), float("nan"), device=dev)
    upd_out = torch.full((128, 128), float("nan"), device=dev)
    driver.launch(fn, shared, [k, v, beta, gamma, kk_out, kv_out, upd_out, n])

    # The kernel's definition in float64 on the same inputs; rows n.. of
    # k, v and beta read as zero.
    live = (torch.arange(64, device=dev) < n).double()
    kd = k.double() * live[:, None]
    vd = v.double() * live[:, None]
    bd = beta.double() * live
    gd = gamma.double()
    decay = torch.exp(gd[:, None] - gd[None, :]) * torch.tril(torch.ones(64, 64, device=dev, dtype=torch.float64), -1)
    kk = bd[:, None] * (kd @ kd.T) * decay
    kv = kk @ vd
    upd = vd.T @ kd

    # Staged bf16 operands round kk (an fp32 tile) before kv; K and V are
    # bf16 already, so kk and upd are exact up to fp32 accumulation.
    bounds = {"kk": 1e-5, "kv": 1e-2 if prec == "bf16" else 1e-3, "upd": 1e-5}
    problems, line = verdict({"kk": (kk_out[:n], kk[:n]), "kv": (kv_out, kv),
                              "upd": (upd_out, upd)}, bounds)
    if n < 64 and not torch.isnan(kk_out[n:]).all():
        problems.append("kk rows past the tail were written")
    return problems, line


def verdict(results, bounds):
    """Errors against bounds, and outputs that must be written but are NaN."""
    import torch
    errs = {name: rel(got, ref) for name, (got, ref) in results.items()}
    problems = [f"{name} rel err {e:.2e} > {bounds[name]:.0e}" for name, e in errs.items()
                if not e <= bounds[name]]
    for name, (got, _) in results.items():
        if torch.isnan(got).any():
            problems.append(f"{name}: {int(torch.isnan(got).sum())} elements not written")
    return problems, ", ".join(f"{name} {e:.2e}" for name, e in errs.items())


def check_chunk_prepare(driver, fn, shared, prec, n, seed):
    """One chunk of the prepare stage against SPEC.md's chunked form."""
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    dev = "cuda"
    q = torch.randn(64, 128, device=dev, generator=g).to(torch.bfloat16)
    k = torch.randn(64, 128, device=dev, generator=g).to(torch.bfloat16)
    v = torch.randn(64, 128, device=dev, generator=g).to(torch.bfloat16)
    a = torch.randn(64, device=dev, generator=g)
    b = torch.randn(64, device=dev, generator=g)
    alog, dtb = -0.7, -2.0
    outs = {name: torch.full(shape, float("nan"), device=dev) for name, shape in (
        ("w", (64, 128)), ("u", (64, 128)), ("kd", (64, 128)), ("qg", (64, 128)),
        ("qk", (64, 64)), ("gamma", (64,)))}
    driver.launch(fn, shared, [q, k, v, a, b, alog, dtb, outs["w"], outs["u"], outs["kd"],
                               outs["qg"], outs["qk"], outs["gamma"], n,
                               torch.empty(0, device=dev, dtype=torch.uint8)])

    f64 = torch.float64
    live = (torch.arange(64, device=dev) < n).to(f64)
    qd, kd_, vd = (x.to(f64) * live[:, None] for x in (q, k, v))
    x = a.to(f64) * live + dtb
    softplus = torch.where(x > 20, x, torch.log1p(torch.exp(torch.clamp(x, max=20))))
    gate = -torch.exp(torch.tensor(alog, dtype=f64)) * softplus * live
    beta = torch.sigmoid(b.to(f64) * live) * live
    qn = qd * torch.rsqrt((qd * qd).sum(1, keepdim=True) + 1e-6)
    kn = kd_ * torch.rsqrt((kd_ * kd_).sum(1, keepdim=True) + 1e-6)
    gamma = torch.cumsum(gate, 0)
    eg = torch.exp(gamma)
    diff = gamma[:, None] - gamma[None, :]
    strict = torch.tril(torch.ones(64, 64, device=dev, dtype=f64), -1)
    causal = torch.tril(torch.ones(64, 64, device=dev, dtype=f64))
    A = beta[:, None] * (kn @ kn.T) * torch.exp(diff * strict) * strict
    tm = torch.linalg.inv(torch.eye(64, device=dev, dtype=f64) + A)
    ref = {
        "w": tm @ ((beta * eg)[:, None] * kn),
        "u": tm @ (beta[:, None] * vd),
        "kd": torch.exp(gamma[-1] - gamma)[:, None] * kn,
        "qg": eg[:, None] * qn,
        "qk": (qn @ kn.T) * torch.exp(diff * causal) * causal,
        "gamma": gamma,
    }
    # Matmul outputs carry the staged operands' rounding (bf16: 2^-9);
    # the rest is fp32 arithmetic.
    mm = 1e-2 if prec == "bf16" else 2e-3
    bounds = {"w": mm, "u": mm, "qk": mm, "kd": 1e-5, "qg": 1e-5, "gamma": 1e-5}
    return verdict({name: (outs[name], ref[name]) for name in ref}, bounds)


CHECKS = {"wy_tiles": check_wy_tiles, "chunk_prepare": check_chunk_prepare}


def run_checks(args):
    import torch
    driver = Driver()
    print("device:", torch.cuda.get_device_name())
    failures = 0
    for _, kernel, precisions, _ in KERNELS:
        if args.only and kernel not in args.only:
            continue
        for prec in precisions:
            name = f"{kernel}-{prec}"
            meta = json.load(open(os.path.join(args.dir, name + ".json")))
            ptx = open(os.path.join(args.dir, name + ".ptx")).read()
            fn = driver.load(ptx, meta["kernel"], meta["shared_bytes"])
            for n, seed in ((64, 1), (37, 2), (2, 3)):
                problems, line = CHECKS[kernel](driver, fn, meta["shared_bytes"], prec, n, seed)
                status = "FAIL " + "; ".join(problems) if problems else "PASS"
                print(f"{name} n={n:2d}: {line}  {status}")
                failures += bool(problems)
    print("tile lowering checks:", "all passed" if not failures else f"{failures} failed")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--gdn-opt", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--ptxas", help="also assemble the PTX for sm_90a")
    c.add_argument("--cuobjdump", help="with --ptxas: also require HGMMA in the SASS")
    r = sub.add_parser("run")
    r.add_argument("--dir", required=True)
    r.add_argument("--only", action="append", choices=sorted(CHECKS),
                   help="check only this kernel (repeatable)")
    args = ap.parse_args()
    return compile_kernels(args) if args.cmd == "compile" else run_checks(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
