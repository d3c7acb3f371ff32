# The two commands of the README: `make run` and `make test`.
# Both install missing Debian packages, configure once, build incrementally, then act.
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

run: build
	$(RIDGE) serve --port 8080

test: build
	ctest --preset $(PRESET)

bench: deps
	cmake --preset release
	cmake --build --preset release --target calc_bench bank_bench
	build/release/calc_bench --benchmark_min_time=0.2
	build/release/bank_bench --benchmark_min_time=0.2

clean:
	rm -rf build
