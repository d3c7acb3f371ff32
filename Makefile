# The two commands of the README: `make run` and `make test`.
# Both install missing Debian packages, configure once, build incrementally, then act.
# `make run` builds only the `ridge` binary, optimized (the release preset), and serves it;
# `make test` builds everything in the dev preset (Debug, -O1, warnings as errors) and tests.
PRESET ?= dev
BUILD := build/$(PRESET)
RIDGE := $(BUILD)/ridge

.PHONY: run test build deps configure bench clean

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset $(PRESET)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build --preset $(PRESET)

build/release/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset release

run: deps build/release/build.ninja
	cmake --build --preset release --target ridge
	build/release/ridge serve --port 8080

test: build
	ctest --preset $(PRESET)

bench: deps
	cmake --preset release
	cmake --build --preset release --target calc_bench bank_bench
	build/release/calc_bench --benchmark_min_time=0.2
	build/release/bank_bench --benchmark_min_time=0.2

clean:
	rm -rf build
