# make demo   - set up the virtual environment and run a whole simulated game
# make test   - set up the virtual environment, lint, type-check and run the tests (not the slow tier)
# make test-slow - the tests marked slow (whole demo games, a wheel build): CI runs them after make test
# make bench  - print the project's speed and memory figures
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test test-slow lint typecheck pytest bench clean docs-images

$(STAMP): pyproject.toml tools/bootstrap-venv.sh
	bash tools/bootstrap-venv.sh $(VENV) $(PYTHON)
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# PyTorch, CPU build, for tools/embedding (type-checked, and its test rebuilds a small
# network); never in the Pi's install. A wheel in pip's find-links is taken as it is
# (no index asked), else PyTorch's CPU index; its dependencies come from PyPI.
TORCH       := torch==2.13.0
TORCH_INDEX := https://download.pytorch.org/whl/cpu
TORCH_STAMP := $(VENV)/.torch-stamp
$(TORCH_STAMP): $(STAMP)
	$(BIN)/pip install -q --no-deps --no-index '$(TORCH)' 2>/dev/null \
	    || $(BIN)/pip install -q --no-deps --index-url $(TORCH_INDEX) '$(TORCH)'
	$(BIN)/pip install -q '$(TORCH)'
	touch $(TORCH_STAMP)

demo: $(STAMP)
	$(BIN)/toptable demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check controller vision hardware firmware tests tools
	$(BIN)/ruff format --check controller vision hardware firmware tests tools

typecheck: $(TORCH_STAMP)
	$(BIN)/mypy

# The tests run in parallel (pytest-xdist): many wait on ptys, brokers and child processes,
# so more workers than cores keep both cores busy. PYTEST_WORKERS=0 runs them in one process.
# A session fixture is made once per worker: a costly one (a calibration) is made by the
# first worker and read by the others (tests/vision/conftest.py: made_once).
PYTEST_WORKERS ?= 4
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal

pytest: $(TORCH_STAMP)
	$(PYTEST) -m "not slow"

test-slow: $(TORCH_STAMP)
	$(PYTEST) -m slow

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
pytest test-slow: $(MICROPYTHON)
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
pytest test-slow docs-images: $(SERVICES)
bench: $(SERVICES)
