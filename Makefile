# make demo   - set up the virtual environment and run a whole simulated game
# make test   - set up the virtual environment, lint, type-check and run the tests (not the slow tier)
# make test-slow - install PyTorch, type-check the modules importing it, run the tests marked slow
#                  (whole demo games, a wheel build): CI runs it after make test
# make bench  - print the project's speed and memory figures
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test test-slow lint typecheck pytest bench clean docs-images

# rpi-lgpio, the spi extra's RPi.GPIO, is a pure-Python wheel: installed without its lgpio
# (no wheel off the Pi), so that tests/hardware/displays/test_spi_pins.py runs the real
# module over hardware/controls/simulated_lgpio.py
$(STAMP): pyproject.toml tools/bootstrap-venv.sh
	bash tools/bootstrap-venv.sh $(VENV) $(PYTHON)
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps 'rpi-lgpio==0.6'
	touch $(STAMP)

# PyTorch, CPU build, for tools/embedding (its test rebuilds a small network) and
# tools/experiments: only make test-slow and make typecheck need it; never in the Pi's
# install. A wheel in pip's find-links is taken as it is (no index asked), else PyTorch's
# CPU index; its dependencies come from PyPI. Nothing of it is compiled to bytecode on the
# way: of its thousands of modules a run imports a few hundred, compiled then.
TORCH       := torch==2.13.0
TORCH_INDEX := https://download.pytorch.org/whl/cpu
TORCH_STAMP := $(VENV)/.torch-stamp
$(TORCH_STAMP): $(STAMP)
	$(BIN)/pip install -q --no-compile --no-deps --no-index '$(TORCH)' 2>/dev/null \
	    || $(BIN)/pip install -q --no-compile --no-deps --index-url $(TORCH_INDEX) '$(TORCH)'
	$(BIN)/pip install -q --no-compile '$(TORCH)'
	touch $(TORCH_STAMP)

# ONNX (to build a graph) and ONNX Runtime, for tools/experiments/onnx_runtime.py alone:
# the measure of the face networks by ONNX Runtime against cv2.dnn; never in the Pi's install
ONNX_STAMP := $(VENV)/.onnx-stamp
$(ONNX_STAMP): $(STAMP)
	$(BIN)/pip install -q 'onnx==1.23.2' 'onnxruntime==1.32.0' 'numpy>=1.24,<2'
	touch $(ONNX_STAMP)

demo: $(STAMP)
	$(BIN)/toptable demo

lint: $(STAMP)
	$(BIN)/ruff check controller vision hardware firmware tests tools
	$(BIN)/ruff format --check controller vision hardware firmware tests tools

# mypy --strict over the whole tree (pyproject.toml). The modules that import torch are
# type-checked against the real torch where it is installed: make typecheck and make
# test-slow; make test checks the rest without it (torch's own modules are half of a
# type-check's CPU, its install a 750 MB unpack).
MYPY        := $(BIN)/mypy
empty       :=
space       := $(empty) $(empty)
WITH_TORCH  := $(shell grep -rlE '^\s*(import|from) torch\b' controller vision hardware firmware tools tests)
TYPES_FAST  := $(MYPY) --exclude '^($(subst $(space),|,$(WITH_TORCH)))$$'
TYPES_TORCH := $(MYPY) $(WITH_TORCH)

typecheck: $(TORCH_STAMP)
	$(MYPY)

# The tests run in parallel (pytest-xdist): many wait on ptys, brokers and child processes,
# so more workers than cores keep both cores busy. PYTEST_WORKERS=0 runs them in one process.
# A session fixture is made once per worker: a costly one (a calibration) is made by the
# first worker and read by the others (tests/vision/conftest.py: made_once).
PYTEST_WORKERS ?= 4
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal
TESTS_FAST := $(PYTEST) -m "not slow"

pytest: $(STAMP)
	$(TESTS_FAST)

# The tests marked realtime run last, alone: four workers of whole demo games would starve
# their threads of the CPU they are timed against.
test-slow: $(TORCH_STAMP)
	$(TYPES_TORCH)
	$(PYTEST) -m "slow and not realtime"
	$(BIN)/pytest -p no:xdist -m realtime

# The tests start Python hundreds of times (workers, the CLI and the daemon as child
# processes): each start reads the bytecode cached by an earlier one instead of compiling
# every module again, even where the environment asks Python to write none
# (PYTHONDONTWRITEBYTECODE; empty is unset).
test pytest test-slow: export PYTHONDONTWRITEBYTECODE :=

# mypy (one process, a CPU-half-minute) runs beside the tests, which leave part of the
# second core idle while they wait on brokers, ptys and child processes. Its report is
# printed after the tests' report; either failing fails make test.
test: lint
	$(TYPES_FAST) > $(VENV)/mypy.log 2>&1 & types=$$!; \
	$(TESTS_FAST); tests=$$?; \
	wait $$types; typed=$$?; \
	echo "mypy:"; cat $(VENV)/mypy.log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The documentation's images, regenerated on purpose (no test writes into the checkout otherwise)
docs-images: $(STAMP)
	$(BIN)/pytest tests/scoreboard/test_page.py tests/scoreboard/test_room.py --docs-images

bench: $(STAMP)
	$(BIN)/toptable bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache

# MicroPython's WebAssembly port for the firmware tests (tests/firmware/test_micropython_wasm.py)
MICROPYTHON := tools/micropython/node_modules/.installed-stamp
.PHONY: micropython clean-micropython
$(MICROPYTHON): tools/micropython/package.json tools/micropython/package-lock.json tools/micropython/install.sh
	bash tools/micropython/install.sh
	touch $(MICROPYTHON)
micropython: $(MICROPYTHON)
test pytest test-slow: $(MICROPYTHON)
clean: clean-micropython
clean-micropython:
	rm -rf tools/micropython/node_modules

# Mosquitto and Debian's Chromium + ChromeDriver for the MQTT and scoreboard tests
SERVICES := $(VENV)/.services-stamp
.PHONY: services
$(SERVICES): tools/services/install.sh
	bash tools/services/install.sh
	touch $(SERVICES)
services: $(SERVICES)
test pytest test-slow docs-images: $(SERVICES)
bench: $(SERVICES)
