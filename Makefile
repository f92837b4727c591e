SHELL := /bin/bash
# The two set-up commands of the README:
#   make demo   install what is missing, build, run the main job (gdn-run)
#   make check  install what is missing, build, run every test
# Other targets: deps, configure, build, docs, clean,
#   cutools           cuobjdump and nvdisasm from PyPI into $(BUILD)/cutools (the static
#                     SASS report of `make check` reads the cubins with it)
#   check-sanitizers  the test suite built with ASan + UBSan (build-asan/)
#   runtime           gdn-run and libgdn.so without LLVM / MLIR (build-rt/), for GPU
#                     hosts (the Python package loads build-rt/lib/libgdn.so there)
#   artifacts         compile the kernels to PTX artifacts (artifacts/<shape>/)
#   wheel             dist/gdn-*.whl: the package with both libraries (build/,
#                     build-rt/) and the artifact sets, for hosts with or
#                     without LLVM (docs/Python.md, "Installing")
#   fuzz              build the libFuzzer targets with clang (build-fuzz/) and
#                     run each for FUZZ_SECONDS (default 300)

BUILD ?= build
JOBS ?= 2
BUILD_TYPE ?= Release
LLVM_PREFIX ?= /usr/lib/llvm-22
CMAKE_FLAGS ?=

# Debian packages the build needs (LLVM / MLIR 22 from bookworm-security).
PACKAGES := cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools \
            llvm-22-tools nlohmann-json3-dev libgtest-dev libcli11-dev python3 \
            python3-numpy python3-pytest python3-venv python3-mpi4py
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev
# cuobjdump (and the nvdisasm it runs) are not in the CUDA install of the
# Debian machines; NVIDIA's PyPI wheels have them (13.2 reads ptxas 13.0's
# cubins).
CUTOOLS_WHEELS := nvidia-cuda-cuobjdump==13.2.86 nvidia-cuda-nvdisasm==13.2.86
CUTOOLS := $(BUILD)/cutools
FUZZ_SECONDS ?= 300
FUZZERS := parse pipeline safetensors

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps cutools fuzz-deps configure build demo check docs clean check-sanitizers fuzz runtime artifacts wheel

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi

cutools:
	@test -x $(CUTOOLS)/nvidia/cu13/bin/nvdisasm || { \
	  echo "Installing $(CUTOOLS_WHEELS) into $(CUTOOLS)"; \
	  python3 -m pip --version >/dev/null 2>&1 || { $(SUDO) apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-pip; }; \
	  python3 -m pip install -q --no-deps --upgrade --target $(CUTOOLS) $(CUTOOLS_WHEELS); }

$(BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps configure
	ninja -C $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/bin/gdn-run

# pipefail: without it the pipe's status is tee's, and a failing test left
# `make check` (and so CI) green.
check: build cutools
	cd $(BUILD) && bash -o pipefail -c 'ctest --output-on-failure -j$(JOBS) | tee ctest.log'
	@scripts/test-summary.sh $(BUILD)
	@if [ -s $(BUILD)/ptx-report.txt ]; then \
	  echo "== PTX for sm_90a at K:V 64:64, 64:128, 128:64 (ptxas -v; no spill allowed):"; \
	  cat $(BUILD)/ptx-report.txt; fi
	@if [ -s $(BUILD)/static-report.txt ]; then \
	  echo "== Static SASS report (bounds: test/GPU/static-bounds.json):"; \
	  cat $(BUILD)/static-report.txt; fi

docs: build
	ninja -C $(BUILD) gdn-docs

# -O1 -g1: line tables for the reports, at a third of -O2 -g's build time.
# The CPU kernels the tests JIT compile at -O0 (GDN_CPU_OPT_LEVEL; lit gets
# it from test/CMakeLists.txt): LLVM is not instrumented, the project is.
check-sanitizers: deps
	cmake -G Ninja -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit -DGDN_SANITIZE=ON
	ninja -C build-asan -j$(JOBS)
	cd build-asan && GDN_CPU_OPT_LEVEL=0 ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS)

fuzz-deps:
	@missing=$$(for p in $(FUZZ_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi

fuzz: deps fuzz-deps
	cmake -G Ninja -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir -DGDN_ENABLE_TESTS=OFF \
	  -DGDN_ENABLE_FUZZERS=ON
	ninja -C build-fuzz -j$(JOBS) $(addprefix gdn-fuzz-,$(FUZZERS))
	@mkdir -p build-fuzz/artifacts
	@for f in $(FUZZERS); do \
	  case $$f in safetensors) corpus=fuzz/corpus/safetensors;; *) corpus=fuzz/corpus/mlir;; esac; \
	  mkdir -p build-fuzz/corpus-$$f; \
	  echo "== fuzzing $$f for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=0 build-fuzz/bin/gdn-fuzz-$$f -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
	    -artifact_prefix=build-fuzz/artifacts/$$f- build-fuzz/corpus-$$f $$corpus \
	    2>&1 | grep -E '^(#[0-9]+.*DONE|stat::|==|SUMMARY|Done)' ; \
	  test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

runtime:
	cmake -G Ninja -S . -B build-rt -DCMAKE_BUILD_TYPE=Release \
	  -DGDN_ENABLE_MLIR=OFF -DGDN_ENABLE_TESTS=OFF \
	  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-static-libstdc++ -static-libgcc"
	ninja -C build-rt -j$(JOBS) gdn-run gdn

# One artifact set per kernel shape the test matrix and the benchmark use
# (the GPU defaults: register tiles, bf16 operands, an auto set), as
# K:V:dtype[:state dtype] (a 16-bit state pool has kernels of its own).
# K = 256 (FLA's layer default, V = 256 / 512): two artifacts a set.
ARTIFACT_SHAPES := 128:128:bf16 64:64:bf16 64:64:f16 64:128:bf16 128:64:bf16 \
                   128:128:f16 128:128:bf16:bf16 128:128:bf16:f16 \
                   256:256:bf16 256:256:f16 256:512:bf16
artifacts: build
	@for s in $(ARTIFACT_SHAPES); do \
	  IFS=: read k v d st <<< "$$s"; \
	  dir=artifacts/k$${k}_v$${v}_$$d$${st:+_state_$$st}; \
	  $(BUILD)/bin/gdn-run --emit artifact --head-dim-k $$k --head-dim-v $$v \
	    --dtype $$d --state-dtype $${st:-f32} --seqlens 1 -o $$dir || exit 1; \
	  echo "$$dir"; \
	done

wheel: build runtime artifacts
	GDN_BUILD_DIR=$(BUILD) python3 -m pip wheel --no-deps --no-cache-dir -w dist .

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-rt build-wheel artifacts dist
