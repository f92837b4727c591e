# The two set-up commands of the README:
#   make demo   install what is missing, build, run the main job (gdn-run)
#   make check  install what is missing, build, run every test
# Other targets: deps, configure, build, docs, clean.

BUILD ?= build
JOBS ?= 2
BUILD_TYPE ?= Release
LLVM_PREFIX ?= /usr/lib/llvm-22
CMAKE_FLAGS ?=

# Debian packages the build needs (LLVM / MLIR 22 from bookworm-security).
PACKAGES := cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools \
            llvm-22-tools nlohmann-json3-dev libgtest-dev libcli11-dev

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build demo check docs clean

all: build

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit $(CMAKE_FLAGS)

configure: $(BUILD)/build.ninja

build: deps configure
	ninja -C $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/bin/gdn-run

check: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) | tee ctest.log
	@scripts/test-summary.sh $(BUILD)

docs: build
	ninja -C $(BUILD) gdn-docs

clean:
	rm -rf $(BUILD)
