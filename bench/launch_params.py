"""Host time of cuLaunchKernel against the number of kernel parameters.

Our kernels take every memref as MLIR's expanded descriptor (allocated,
aligned, offset, sizes, strides), so a split-seq kernel has about 170
scalar parameters. This times the driver's launch of an empty kernel with
N u64 parameters, passed as a list of N pointers (`kernelParams`) and as
one packed buffer (`extra`, CU_LAUNCH_PARAM_BUFFER_POINTER), so that the
runtime's choice between the two rests on a measurement. Needs a GPU and
nothing but the driver (ctypes); the stream is synchronised every 64
launches outside the timed calls.

    python3 bench/launch_params.py [--launches 4000]
"""

import argparse
import ctypes
import statistics
import time

CU_LAUNCH_PARAM_END = ctypes.c_void_p(0)
CU_LAUNCH_PARAM_BUFFER_POINTER = ctypes.c_void_p(1)
CU_LAUNCH_PARAM_BUFFER_SIZE = ctypes.c_void_p(2)


def ptx_with_params(count):
    params = ",\n".join(f"  .param .u64 p{i}" for i in range(count))
    return (".version 8.0\n.target sm_90\n.address_size 64\n"
            f".visible .entry empty(\n{params}\n)\n{{\n  ret;\n}}\n").encode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=4000)
    parser.add_argument("--counts", default="1,16,64,120,170,256")
    args = parser.parse_args()

    cu = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            raise RuntimeError(f"{what} failed: CUresult {result}")

    check(cu.cuInit(0), "cuInit")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    check(cu.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "retain")
    check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    name = ctypes.create_string_buffer(128)
    cu.cuDeviceGetName(name, 128, device)
    print(f"device: {name.value.decode()}; median host time of one launch "
          f"over {args.launches} launches, us")
    stream = ctypes.c_void_p(0)
    clock = time.perf_counter_ns

    def timed(launch):
        times = []
        for i in range(args.launches):
            if i % 64 == 0:
                check(cu.cuStreamSynchronize(stream), "sync")
            start = clock()
            launch()
            times.append(clock() - start)
        check(cu.cuStreamSynchronize(stream), "sync")
        return statistics.median(times) / 1e3

    current = ctypes.c_void_p()
    noop_us = timed(lambda: cu.cuCtxGetCurrent(ctypes.byref(current)))
    print(f"a ctypes call of cuCtxGetCurrent (the floor of any call here): {noop_us:.2f}")
    capture = ctypes.c_int()
    print(f"cuStreamIsCapturing: "
          f"{timed(lambda: cu.cuStreamIsCapturing(stream, ctypes.byref(capture))):.2f}")
    print("| parameters | kernelParams list | one buffer (extra) |")
    print("|---|---|---|")
    for count in [int(c) for c in args.counts.split(",")]:
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        check(cu.cuModuleLoadData(ctypes.byref(module), ptx_with_params(count)),
              "cuModuleLoadData")
        check(cu.cuModuleGetFunction(ctypes.byref(function), module, b"empty"),
              "cuModuleGetFunction")
        words = (ctypes.c_uint64 * count)(*range(count))
        pointers = (ctypes.c_void_p * count)(
            *[ctypes.addressof(words) + 8 * i for i in range(count)])
        size = ctypes.c_size_t(8 * count)
        extra = (ctypes.c_void_p * 5)(
            CU_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(words),
            CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
            CU_LAUNCH_PARAM_END)
        launch = cu.cuLaunchKernel

        def by_list():
            launch(function, 1, 1, 1, 32, 1, 1, 0, stream, pointers, None)

        def by_buffer():
            launch(function, 1, 1, 1, 32, 1, 1, 0, stream, None, extra)

        check(cu.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream,
                                pointers, None), "launch (list)")
        check(cu.cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream,
                                None, extra), "launch (buffer)")
        listed, buffered = timed(by_list), timed(by_buffer)
        print(f"| {count} | {listed:.2f} | {buffered:.2f} |")
        cu.cuModuleUnload(module)


if __name__ == "__main__":
    main()
