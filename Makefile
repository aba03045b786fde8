# SPDX-License-Identifier: BSD-2-Clause
# Convenience wrapper around CMake; the README's two set-up commands are
# `make demo` and `make check`.  Everything else is plain CMake/ctest.
#
#   make demo                 configure, build everything, run the demo
#   make check                build and run the whole test suite
#   make check BUILD=build-asan CMAKE_FLAGS=-DKQ_SANITIZE=address,undefined
#   make install PREFIX=/usr/local   [DESTDIR=/staging]
#   make uninstall            remove what the last `make install` from
#                             $(BUILD) installed (its install_manifest.txt)
#
# `make install` builds only the two libraries (the other installed files
# need no build) and installs with --prefix $(PREFIX), whatever prefix
# $(BUILD) was configured with.  Then cmake/install-helper.sh runs ldconfig
# when root installed into a directory the dynamic linker searches, or says
# how to run programs otherwise.

BUILD       ?= build
PREFIX      ?= /usr/local
CMAKE_FLAGS ?=
CTEST_FLAGS ?=
JOBS        ?= 2
GENERATOR   := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")

.PHONY: all configure build demo check bench install uninstall clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	cmake --build $(BUILD) --target demo

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE 'stress|integration' $(CTEST_FLAGS)

install: configure
	cmake --build $(BUILD) -j $(JOBS) --target kq kq_static
	cmake --install $(BUILD) --prefix $(PREFIX)
	@sh cmake/install-helper.sh installed $(BUILD)/install_manifest.txt

uninstall:
	@sh cmake/install-helper.sh uninstall $(BUILD)/install_manifest.txt

clean:
	rm -rf $(BUILD)
