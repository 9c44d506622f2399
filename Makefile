# mechsym-lab. `make` builds the kernels (build/mechsym.jar, build/c/*), the JMH benchmarks (build/jmh.jar) and the
# Python environment (.venv, from the pinned versions in requirements.lock);
# `make test` runs the test suite at smoke size. A second `make` with nothing
# changed does nothing. `make lock` refreshes requirements.lock.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
JAVAC  := $(if $(JAVA_HOME),$(JAVA_HOME)/bin/javac,javac)
JAR    := $(if $(JAVA_HOME),$(JAVA_HOME)/bin/jar,jar)
MVN    ?= mvn
CC     ?= gcc
PRESET ?= stored
MACHINE ?=
WITH_CODE ?=
LOCK   := requirements.lock
UV_VERSION := 0.13.8
# make lab: JupyterLab on this address and port (127.0.0.1: reach it from another machine through an SSH tunnel).
LAB_IP   ?= 127.0.0.1
LAB_PORT ?= 8888

JAVA_SRCS := $(shell find java-src -name '*.java' 2>/dev/null)
JMH_SRCS  := $(shell find jmh-src -name '*.java' 2>/dev/null)
C_SRCS    := $(wildcard c-src/*.c)
C_BINS    := $(patsubst c-src/%.c,build/c/%,$(C_SRCS))
NB_SRCS   := $(wildcard notebooks/src/*.py)
NB_IPYNB  := $(patsubst notebooks/src/%.py,notebooks/%.ipynb,$(NB_SRCS))

.PHONY: all jar jmh c venv lock notebooks test test-seeds lab reports refresh fleet fleet-deps fleet-lock pack clean

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

all: jar jmh c venv

# Maven quiet: -q -B -Dstyle.color=never leave colour off, but Maven 3.8's console (Jansi 2) still writes a reset code
# (ESC[0m) on stdout and stderr as it starts and stops; jansi.noreset, read when the JVM starts (MAVEN_OPTS, not -D),
# turns that off.
MVN_QUIET := MAVEN_OPTS="$$MAVEN_OPTS -Djansi.noreset=true" $(MVN) -q -B -Dstyle.color=never
# The kernels use sun.misc.Unsafe (off-heap queues, field offsets), on purpose: javac's "internal proprietary API"
# warning for each use says nothing new, so -XDignore.symbol.file leaves it out (the class files are the same).
JAVAC_QUIET := -XDignore.symbol.file

# Third-party jars from Maven Central, listed in pom.xml: the kernels' (JOL, JCTools, Disruptor, HdrHistogram) into
# build/lib; JMH's (provided scope: jmh-core, its annotation processor and their dependencies) into build/jmh-lib,
# apart, so that the kernels' javac never finds the annotation processor on its class path.
build/lib/.stamp: pom.xml
	@command -v $(MVN) >/dev/null 2>&1 || { echo "make: mvn not found: install Maven (Debian: apt-get install maven) to fetch the kernels' jars"; exit 1; }
	@mkdir -p build/lib
	$(MVN_QUIET) dependency:copy-dependencies -DoutputDirectory=build/lib -DexcludeScope=provided
	@touch $@

build/jmh-lib/.stamp: pom.xml
	@command -v $(MVN) >/dev/null 2>&1 || { echo "make: mvn not found: install Maven (Debian: apt-get install maven) to fetch JMH"; exit 1; }
	@rm -rf build/jmh-lib && mkdir -p build/jmh-lib
	$(MVN_QUIET) dependency:copy-dependencies -DoutputDirectory=build/jmh-lib -DincludeScope=provided
	@touch $@

jar: build/mechsym.jar
build/mechsym.jar: $(JAVA_SRCS) build/lib/.stamp
	@rm -rf build/classes && mkdir -p build/classes
	$(JAVAC) --release 17 $(JAVAC_QUIET) -Xlint:all,-options,-processing,-removal,-serial -d build/classes -cp 'build/lib/*' $(JAVA_SRCS)
	$(JAR) cf $@ -C build/classes .

# The JMH benchmarks (jmh-src/mechsym/jmh/): javac runs JMH's annotation processor, which writes the generated
# harness classes and META-INF/BenchmarkList beside the benchmarks' own classes. No uber-jar: they run as
# java -cp build/jmh.jar:build/jmh-lib/*:build/lib/*:build/mechsym.jar org.openjdk.jmh.Main (src/mechsym/run/jmh.py
# builds that line). Benchmarks that measure a kernel's own classes (the SPSC queues) take them from the kernels' jar.
jmh: build/jmh.jar
build/jmh.jar: $(JMH_SRCS) build/jmh-lib/.stamp build/lib/.stamp build/mechsym.jar
	@rm -rf build/jmh-classes && mkdir -p build/jmh-classes
	$(JAVAC) --release 17 $(JAVAC_QUIET) -Xlint:all,-options,-processing,-serial -d build/jmh-classes \
	    -cp 'build/jmh-lib/*:build/lib/*:build/mechsym.jar' -processor org.openjdk.jmh.generators.BenchmarkProcessor $(JMH_SRCS)
	$(JAR) cf $@ -C build/jmh-classes .

c: $(C_BINS)
build/c/%: c-src/%.c $(wildcard c-src/*.h)
	@command -v $(CC) >/dev/null 2>&1 || { echo "make: $(CC) not found: install gcc (Debian: apt-get install gcc)"; exit 1; }
	@mkdir -p build/c
	$(CC) -O2 -pthread -Wall -Wextra -Werror -o $@ $<

# The Python environment: exactly the versions pinned in requirements.lock, then the lab itself (no dependencies
# of its own left to resolve).
venv: $(VENV)/.stamp
$(VENV)/.stamp: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r $(LOCK)
	$(VPY) -m pip install -q --no-deps -e .
	@touch $@

# requirements.lock from pyproject.toml's dependencies, for every Python >= 3.10 (markers where versions differ),
# resolved by uv in its own small environment under build/. Keeps the pinned versions it can; `make lock UPGRADE=1`
# moves every package to its newest release. Then bring environment.yml's versions in step (tests/test_environment.py
# says which differ) and run `make` to install.
lock:
	@test -x build/uv/bin/uv || { $(PYTHON) -m venv build/uv && build/uv/bin/pip install -q "uv==$(UV_VERSION)"; }
	build/uv/bin/uv pip compile pyproject.toml --universal --python-version 3.10 --quiet \
	    --custom-compile-command "make lock" $(if $(UPGRADE),--upgrade) -o $(LOCK)

# Notebooks are written as jupytext py:percent sources in notebooks/src/ and
# paired .ipynb files (no outputs) in notebooks/; this re-creates the .ipynb.
notebooks: $(NB_IPYNB)
notebooks/%.ipynb: notebooks/src/%.py $(VENV)/.stamp
	$(VENV)/bin/jupytext --quiet --update --to ipynb --output $@ $<   # --update: cell ids kept

# Two pytest-xdist workers (TEST_WORKERS=0: none). The tests that run a kernel or a sweep (marked
# `@pytest.mark.kernel`) are one xdist group ("serial", tests/conftest.py), so they run one after another on one
# worker, each holding a kernel lock; the tests that measure nothing share both workers, and the notebook renders
# read one smoke run per experiment, swept once under that lock.
TEST_WORKERS ?= 2
# The project's bytecode is compiled first: with PYTHONDONTWRITEBYTECODE set (as in many containers) every process the
# tests start (a notebook's kernel, a `mechsym` command) would otherwise compile src/ again, about 0.4 s each.
test: all fleet-deps pack
	$(VPY) -m compileall -q src tests
	$(VENV)/bin/pytest -q -m "not seeds" $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup) tests

# The five-seed stability check of the stored verdicts (tests/test_seed_stability.py): every stored run judged again
# under four other bootstrap seeds, ~1 min of CPU a seed since the runs carry until-decided extensions (judged at
# the spent level, with more resamples). Run it after a refresh or a change to the statistics; `make test` skips it.
test-seeds: all
	$(VENV)/bin/pytest -q -m seeds $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadgroup) tests

# Re-run, one at a time under the bench lock, the standard preset of every experiment whose shown run is stale
# (measured with other kernels than the checkout's); says which and how long first; refuses a dirty tree.
# `make refresh DRY_RUN=1` only says; `make refresh EXPERIMENTS=locks,spsc` limits it.
refresh: all
	$(VENV)/bin/mechsym refresh $(if $(EXPERIMENTS),--experiments $(EXPERIMENTS)) $(if $(DRY_RUN),--dry-run)

# The same sweep on every host of an Ansible inventory, gathered into this checkout's store (fleet/site.yml, driven
# by fleet/fleet.py: a line per host and step, a summary at the end). Each host's build and sweep run detached there:
# run the same command again after a dropped connection and it re-attaches, resumes and gathers (LIMIT=host: that
# host only). PRESET defaults to smoke (a check); PACK=1 sends `make pack` to the hosts, which then need no
# internet. ansible-core goes into .venv from the exact versions in fleet/requirements.txt (`make fleet-deps`;
# `make test` installs it too, for tests/test_fleet*.py); requirements.lock stays without it. `make fleet-lock`
# re-compiles fleet/requirements.txt from fleet/requirements.in within requirements.lock's versions.
#   make fleet INVENTORY=fleet/inventory.example.ini EXPERIMENTS=locks,spsc PRESET=standard [PACK=1] [LIMIT=host]
FLEET_REQS := fleet/requirements.txt
fleet-deps: $(VENV)/.fleet-stamp
$(VENV)/.fleet-stamp: $(FLEET_REQS) $(VENV)/.stamp
	$(VPY) -m pip install -q -r $(FLEET_REQS)
	@touch $@

fleet: all fleet-deps $(if $(PACK),pack)
	@test -n "$(INVENTORY)" || { echo "make fleet: give INVENTORY=hosts.ini (an Ansible inventory; see fleet/inventory.example.ini)"; exit 2; }
	@test -n "$(EXPERIMENTS)" || { echo "make fleet: give EXPERIMENTS=locks,spsc (see \`.venv/bin/mechsym list\`)"; exit 2; }
	@$(if $(filter stored,$(PRESET)),echo "make fleet: preset smoke (the default: a check that everything runs);" \
	    "the stored results are make fleet ... PRESET=standard")
	$(VPY) fleet/fleet.py --inventory '$(INVENTORY)' --experiments '$(EXPERIMENTS)' \
	    --preset $(if $(filter stored,$(PRESET)),smoke,$(PRESET)) $(if $(FLEET_OUT),--out '$(FLEET_OUT)') \
	    $(if $(PACK),--pack build/pack/mechsym-pack.tar) $(if $(LIMIT),--limit '$(LIMIT)') $(if $(POLL),--poll '$(POLL)')

# What a host without internet needs, from this machine (fleet/pack.py): the Maven and kernels' jars and a wheelhouse
# of requirements.lock for PACK_PYTHON (the hosts' Python: same minor version and CPU architecture as theirs), in
# build/pack/mechsym-pack.tar; the hosts build the C kernels with their gcc. Downloads ~140 MB once; says "up to
# date" when nothing it is made of changed. `make test` makes it for tests/test_fleet_ssh.py.
PACK_PYTHON ?= $(PYTHON)
pack: jar jmh
	$(PYTHON) fleet/pack.py --python $(PACK_PYTHON) --out build/pack

fleet-lock:
	@test -x build/uv/bin/uv || { $(PYTHON) -m venv build/uv && build/uv/bin/pip install -q "uv==$(UV_VERSION)"; }
	build/uv/bin/uv pip compile fleet/requirements.in --universal --python-version 3.10 --quiet -c $(LOCK) \
	    --custom-compile-command "make fleet-lock" -o $(FLEET_REQS)

# JupyterLab on notebooks/, headless: prints the URL to open (with its token) and how to reach it from another
# machine. As root (most containers) it adds --allow-root. The port is fixed (no silent move to the next one), so
# the printed URL is the one it serves; a taken port is said first, with the fix, before any URL. Saving a notebook
# writes its source (notebooks/jupytext.toml) and the .ipynb without outputs (the pre-save hook): the tree stays
# clean. tests/test_lab.py starts the server with these options.
lab: all
	@$(VPY) -c 'import socket as k; s = k.socket(); s.setsockopt(k.SOL_SOCKET, k.SO_REUSEADDR, 1); \
	    s.bind(("$(LAB_IP)", $(LAB_PORT)))' 2>/dev/null || { \
	    echo "make lab: port $(LAB_PORT) on $(LAB_IP) is taken (a lab already running?): stop it, or pick another" \
	         "port: make lab LAB_PORT=$$(($(LAB_PORT) + 1))"; exit 2; }
	@token=$${JUPYTER_TOKEN:-$$($(VPY) -c 'import secrets; print(secrets.token_urlsafe(24))')}; \
	host=$$(case "$(LAB_IP)" in 0.0.0.0|::) hostname;; *) echo "$(LAB_IP)";; esac); \
	echo "JupyterLab on port $(LAB_PORT): open http://$$host:$(LAB_PORT)/lab?token=$$token"; \
	echo "From another machine: ssh -N -L $(LAB_PORT):localhost:$(LAB_PORT) $$(id -un)@$$(hostname), then open" \
	     "http://localhost:$(LAB_PORT)/lab?token=$$token there. Ctrl-C stops the lab."; \
	JUPYTER_TOKEN=$$token exec $(VENV)/bin/jupyter lab --no-browser --ip=$(LAB_IP) --port=$(LAB_PORT) \
	    --ServerApp.port_retries=0 --ServerApp.root_dir=notebooks \
	    --ContentsManager.pre_save_hook=mechsym.view.lab.strip_outputs $(if $(filter 0,$(shell id -u)),--allow-root)

# HTML reports from stored results (make reports PRESET=standard re-runs).
reports: all
	$(VENV)/bin/mechsym reports --preset $(PRESET) $(if $(MACHINE),--machine $(MACHINE)) $(if $(WITH_CODE),--with-code)

clean:
	rm -rf build reports
