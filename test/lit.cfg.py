# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GDN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gdn_obj_root, "test")

config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%gdn_libs", os.path.join(config.gdn_obj_root, "lib")))
config.substitutions.append(("%gdn_src", config.gdn_src_root))
config.substitutions.append(("%kernels", os.path.join(config.gdn_src_root, "kernels")))
config.substitutions.append(("%gdn_build", config.gdn_obj_root))

# `lit --param schedule=NAME|FILE` runs every gdn-run of the suite under
# that fusion schedule (ctest runs the integration matrix under each).
schedule = lit_config.params.get("schedule")
if schedule:
    config.environment["GDN_SCHEDULE"] = schedule
    config.name = "GDN[" + os.path.basename(schedule) + "]"
    config.available_features.add("scheduled")
    # ctest runs these beside the default suite (-j): each schedule writes
    # its %t files under its own root, or two runs of one test race on them.
    config.test_exec_root = os.path.join(
        config.gdn_obj_root, "test", "schedule-" + os.path.basename(schedule))

# GDN_LIT_ROOT=DIR: the lit files of DIR, a folder of the user's anywhere,
# run as this suite's: same tools, substitutions and features
# (docs/Testing.md). `lit build/test` then runs all of DIR, `lit
# build/test/a/b.mlir` runs DIR/a/b.mlir.
user_root = os.environ.get("GDN_LIT_ROOT")
if user_root:
    user_root = os.path.abspath(user_root)
    config.test_source_root = user_root
    config.test_exec_root = os.path.join(
        config.test_exec_root, "user-" + os.path.basename(user_root))
    config.name = "GDN[" + user_root + "]"

# `lit --param cpu_opt_level=N` compiles the CPU kernels at LLVM -ON
# (GDN_CPU_OPT_LEVEL) instead of -O3. ctest runs the suite at 0: what a
# kernel computes does not depend on it, and -O3's code generation was most
# of the suite's time. The Python package's tests run at -O3.
cpu_opt_level = lit_config.params.get("cpu_opt_level")
if cpu_opt_level:
    config.environment["GDN_CPU_OPT_LEVEL"] = cpu_opt_level

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [os.path.join(config.gdn_obj_root, "bin"), config.llvm_tools_dir]
tools = ["gdn-opt", "gdn-run", "mlir-opt", "mlir-runner"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Under the sanitizer build the plugin would need the ASan runtime preloaded
# into the stock (uninstrumented) mlir-opt; that test is skipped there.
if config.gdn_sanitize:
    config.available_features.add("asan")
    # LLVM's headers poison allocator memory that the uninstrumented
    # libMLIR.so hands out again: user poisoning gives false reports there.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"

# ptxas from the CUDA toolkit checks the PTX the GPU pipeline emits.
if config.cuda_ptxas and os.path.exists(config.cuda_ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.cuda_ptxas))

# Whether a CUDA driver can be loaded (GPU machines): some tests expect none.
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
except OSError:
    config.available_features.add("no-cuda-driver")
