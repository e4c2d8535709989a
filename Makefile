# gojit build entry points. `make demo` and `make test` install what a fresh
# Debian machine lacks (LLVM 19's and libjpeg-turbo's development packages)
# before running.

export PATH := /usr/local/go/bin:$(PATH)
GO ?= go
# Fuzz by execution count, not time: with a time limit, Go's fuzzing
# coordinator reports "context deadline exceeded" as a failure when the
# deadline lands while a worker is inside one input, and every input here
# includes an LLVM compile. 4000 runs take about 20-30 s.
FUZZTIME ?= 4000x
# Pinned by semver (the proxy refuses tag-name queries such as 2025.1.1 for a
# module it has not cached); v0.8.2 supports Go 1.26. `go run` builds it on first use.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps llvm-setup demo test bench bench-peers bench-peers-pipeline bench-formula fuzz clean

deps:
	@command -v $(GO) >/dev/null || { echo "Go 1.26 is required (expected at /usr/local/go)"; exit 1; }
	@command -v llvm-config-19 >/dev/null 2>&1 || { \
		echo "llvm-config-19 not found: installing llvm-19-dev"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q llvm-19-dev; }
	@[ -f /usr/include/turbojpeg.h ] && [ -f /usr/include/jpeglib.h ] || { \
		echo "turbojpeg.h or jpeglib.h not found: installing libturbojpeg0-dev and libjpeg62-turbo-dev (internal/jpeg uses both APIs)"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q libturbojpeg0-dev libjpeg62-turbo-dev; }

# A trimmed libLLVM (internal/llvm/trimmed.go) linked once into the user's
# cache directory from llvm-19-dev's static libraries: a fresh process's
# first compile then loads 47 MB instead of Debian's 130 (4-9 ms instead of
# 14-24). About 4-9 s the first time, nothing afterwards (gojit setup keeps
# a valid one). Optional: if it cannot be linked, gojit uses Debian's
# libLLVM, so a failure here only warns.
llvm-setup: deps
	@$(GO) run ./cmd/gojit setup || echo "warning: gojit setup could not link the trimmed libLLVM; gojit uses the system's libLLVM"

demo: deps llvm-setup
	$(GO) run ./cmd/gojit demo

test: deps llvm-setup
	$(GO) vet ./...
	$(GO) vet -tags nollvm ./...
	$(GO) run $(STATICCHECK) ./...
	CGO_ENABLED=0 $(GO) run $(STATICCHECK) ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test -count=1 ./...
	CGO_ENABLED=0 $(GO) test -count=1 ./...
	$(GO) test -count=1 -race -run 'Concurrent|Race' . ./internal/llvm ./internal/runtime ./internal/diskcache
	$(GO) test -count=1 -race -short ./lazy ./pipeline ./dataset
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCompiledVsInterpreter$$' -fuzztime $(FUZZTIME) .
	# package source against go/ssa/interp: 300 runs take 10-20 s (each an LLVM compile).
	$(GO) test -count=1 -run '^$$' -fuzz '^FuzzCompileVsSSAInterp$$' -fuzztime 300x -fuzzminimizetime 10x ./source

bench: deps
	$(GO) run ./cmd/gojit bench

# Peers run under Debian's /usr/bin/python3, which is where python3-numpy,
# python3-numba, python3-numexpr and python3-torch install (a python3 earlier on PATH usually lacks them);
# OpenBLAS so that NumPy's matmul uses an optimized BLAS, as it would anywhere.
bench-peers: deps
	@/usr/bin/python3 -c 'import numba, numpy, numexpr, torch' 2>/dev/null && ls /usr/lib/*/libopenblas*.so* >/dev/null 2>&1 || { \
		echo "installing python3-numba, python3-numpy, python3-numexpr, python3-torch and OpenBLAS for /usr/bin/python3"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-numba python3-numpy python3-numexpr python3-torch libopenblas0-pthread; }
	$(GO) run ./cmd/gojit bench -peers -plot docs/benchmarks.png -doc docs/benchmarks.md

# The data pipelines (issue 13) against torchvision with PIL and OpenCV with
# NumPy: a synthetic set of PIPE_N JPEGs (drawn once, kept in PIPE_DIR),
# the Python peers and gojit's pipelines with 1 worker pinned to CPU 0, and
# gojit with 2 workers on CPUs 0 and 1; one table, also written into
# docs/benchmarks.md. Where the user may (root), the runs get real-time
# priority (PIPE_RT=chrt -f 50), which steadies timings on a shared
# machine; set PIPE_RT= to run them at normal priority. About 4 minutes.
PIPE_DIR ?= /tmp/gojit-bench-pipeline
PIPE_N ?= 2000
PIPE_EPOCHS ?= 2
PIPE_RT ?= $(shell chrt -f 50 true 2>/dev/null && echo chrt -f 50)
PIPE_SET = $(PIPE_DIR)/set-$(PIPE_N)
PIPE_GOJIT = $(PIPE_DIR)/gojit
PIPE_BENCH = $(PIPE_GOJIT) dataset bench $(PIPE_SET)/images.gojit --epochs $(PIPE_EPOCHS) --json
bench-peers-pipeline: deps
	@/usr/bin/python3 -c 'import torchvision, cv2, PIL, numpy' 2>/dev/null || { \
		echo "installing python3-torchvision, python3-opencv, python3-pil and python3-numpy for /usr/bin/python3"; \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q python3-torchvision python3-opencv python3-pil python3-numpy; }
	@mkdir -p $(PIPE_DIR)
	$(GO) build -o $(PIPE_GOJIT) ./cmd/gojit
	@[ -f $(PIPE_SET)/labels.csv ] || $(PIPE_GOJIT) dataset synth-jpeg $(PIPE_SET) --n $(PIPE_N) --size 256 --quality 90 --seed 1
	$(PIPE_RT) taskset -c 0 $(PIPE_GOJIT) dataset peers $(PIPE_SET) --rounds 2 > $(PIPE_DIR)/peers.json
	$(PIPE_RT) taskset -c 0 $(PIPE_BENCH) --pipeline rrc224 --workers 1 --cpu 0 > $(PIPE_DIR)/rrc224-w1.json
	$(PIPE_RT) taskset -c 0 $(PIPE_BENCH) --pipeline cc224 --workers 1 --cpu 0 > $(PIPE_DIR)/cc224-w1.json
	$(PIPE_RT) taskset -c 0,1 $(PIPE_BENCH) --pipeline rrc224 --workers 2 --cpu 0,1 > $(PIPE_DIR)/rrc224-w2.json
	@[ -f $(PIPE_DIR)/raw64/labels.csv ] || $(PIPE_GOJIT) dataset synth-jpeg $(PIPE_DIR)/raw64 --n 8000 --size 64 --encoding raw --exact --seed 1
	$(PIPE_RT) taskset -c 0 $(PIPE_GOJIT) dataset bench $(PIPE_DIR)/raw64/images.gojit --epochs $(PIPE_EPOCHS) --json --pipeline raw64 --workers 1 --cpu 0 > $(PIPE_DIR)/raw64-w1.json
	$(PIPE_GOJIT) dataset peers-table --doc docs/benchmarks.md $(PIPE_DIR)/peers.json \
		$(PIPE_DIR)/rrc224-w1.json $(PIPE_DIR)/cc224-w1.json $(PIPE_DIR)/rrc224-w2.json $(PIPE_DIR)/raw64-w1.json

# source.Formula against github.com/expr-lang/expr on a 6-operation formula
# over 1e6 float64 rows, ns/row and the ratio from one run. The peer is a
# module of its own (expr is not a gojit dependency), so the first run
# downloads expr; `make test` never enters it.
bench-formula: deps
	cd internal/bench/exprpeer && $(GO) test -count=1 -run TestAgree . && \
		$(GO) test -count=1 -run '^$$' -bench FormulaVsExpr -benchtime 5x -benchmem .

fuzz: deps
	$(GO) test -run '^$$' -fuzz '^FuzzCompiledVsInterpreter$$' -fuzztime 100000x .

clean:
	$(GO) clean -testcache
