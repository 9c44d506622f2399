# mechsym-lab. `make` builds the kernels (build/mechsym.jar, build/c/*) and the
# Python environment (.venv); `make test` runs the test suite at smoke size.
# A second `make` with nothing changed does nothing.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
JAVAC  := $(if $(JAVA_HOME),$(JAVA_HOME)/bin/javac,javac)
JAR    := $(if $(JAVA_HOME),$(JAVA_HOME)/bin/jar,jar)
MVN    ?= mvn
CC     ?= gcc
PRESET ?= stored
MACHINE ?=

JAVA_SRCS := $(shell find java-src -name '*.java' 2>/dev/null)
C_SRCS    := $(wildcard c-src/*.c)
C_BINS    := $(patsubst c-src/%.c,build/c/%,$(C_SRCS))
NB_SRCS   := $(wildcard notebooks/src/*.py)
NB_IPYNB  := $(patsubst notebooks/src/%.py,notebooks/%.ipynb,$(NB_SRCS))

.PHONY: all jar c venv notebooks test lab reports clean

# The tools a build needs, checked before anything runs: one line saying what to install.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(shell command -v $(JAVAC) 2>/dev/null),)
$(error javac not found: install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME)
endif
ifeq ($(shell command -v $(PYTHON) 2>/dev/null),)
$(error $(PYTHON) not found: install Python >= 3.10 (Debian: apt-get install python3 python3-venv))
endif
ifneq ($(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 10)))' 2>/dev/null),1)
$(error $(PYTHON) is older than 3.10: install Python >= 3.10, or run make PYTHON=python3.11)
endif
endif

all: jar c venv

# Third-party jars (JOL, JCTools, HdrHistogram) from Maven Central, listed in pom.xml.
build/lib/.stamp: pom.xml
	@command -v $(MVN) >/dev/null 2>&1 || { echo "make: mvn not found: install Maven (Debian: apt-get install maven) to fetch the kernels' jars"; exit 1; }
	@mkdir -p build/lib
	$(MVN) -q -B dependency:copy-dependencies -DoutputDirectory=build/lib
	@touch $@

jar: build/mechsym.jar
build/mechsym.jar: $(JAVA_SRCS) build/lib/.stamp
	@rm -rf build/classes && mkdir -p build/classes
	$(JAVAC) --release 17 -Xlint:all,-options,-processing,-removal,-serial -d build/classes -cp 'build/lib/*' $(JAVA_SRCS)
	$(JAR) cf $@ -C build/classes .

c: $(C_BINS)
build/c/%: c-src/%.c $(wildcard c-src/*.h)
	@command -v $(CC) >/dev/null 2>&1 || { echo "make: $(CC) not found: install gcc (Debian: apt-get install gcc)"; exit 1; }
	@mkdir -p build/c
	$(CC) -O2 -pthread -Wall -Wextra -Werror -o $@ $<

venv: $(VENV)/.stamp
$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e .
	@touch $@

# Notebooks are written as jupytext py:percent sources in notebooks/src/ and
# paired .ipynb files (no outputs) in notebooks/; this re-creates the .ipynb.
notebooks: $(NB_IPYNB)
notebooks/%.ipynb: notebooks/src/%.py $(VENV)/.stamp
	$(VENV)/bin/jupytext --quiet --to ipynb --output $@ $<

test: all
	$(VENV)/bin/pytest -q tests

lab: all
	$(VENV)/bin/jupyter lab notebooks/

# HTML reports from stored results (make reports PRESET=standard re-runs).
reports: all
	$(VENV)/bin/mechsym reports --preset $(PRESET) $(if $(MACHINE),--machine $(MACHINE))

clean:
	rm -rf build reports
