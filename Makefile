# make demo   - set up the virtual environment and run a whole simulated game
# make test   - set up the virtual environment, lint, type-check and run the tests
# make bench  - print the project's speed and memory figures
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck pytest bench clean references

$(STAMP): pyproject.toml tools/bootstrap-venv.sh
	bash tools/bootstrap-venv.sh $(VENV) $(PYTHON)
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/toptable demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check controller vision hardware firmware tests tools
	$(BIN)/ruff format --check controller vision hardware firmware tests tools

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

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
pytest: $(MICROPYTHON)
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
pytest: $(SERVICES)
bench: $(SERVICES)
