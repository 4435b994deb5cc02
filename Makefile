# kinf — build, test and install.  Plain make; see README.md.

VERSION  := 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DESTDIR  ?=

CC         ?= cc
PKG_CONFIG ?= pkg-config
PKGS       := libcurl json-c ncursesw yaml-0.1 libssl libcrypto zlib libzstd libmicrohttpd

# The three GCC 14 makes errors: a callback of a stale signature is no
# build, not a warning in a log.
WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 \
            -Wmissing-prototypes -Wno-unused-parameter \
            -Werror=incompatible-pointer-types -Werror=implicit-function-declaration \
            -Werror=int-conversion
CFLAGS   ?= -O2 -g
LAYERS   := lib cluster informer controller output tui cli
CPPFLAGS += -DKINF_VERSION='"$(VERSION)"' -D_GNU_SOURCE -Isrc
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -pthread \
             $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -pthread -lm

comma := ,
# make SANITIZE=address,undefined check  (or SANITIZE=thread)
ifdef SANITIZE
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -O1
LDFLAGS    += -fsanitize=$(SANITIZE)
# undefined behaviour ends the process, as a memory error does: a test fails
ifneq ($(findstring undefined,$(SANITIZE)),)
ALL_CFLAGS += -fno-sanitize-recover=undefined
LDFLAGS    += -fno-sanitize-recover=undefined
endif
BUILD      ?= build/$(subst $(comma),-,$(SANITIZE))
else
BUILD      ?= build/default
endif
SRCS      := $(filter-out src/cli/main.c,$(wildcard $(LAYERS:%=src/%/*.c)))
OBJS      := $(SRCS:src/%.c=$(BUILD)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

all: kinf

kinf: $(BUILD)/kinf
	@ln -sf $(BUILD)/kinf kinf

$(BUILD)/kinf: $(BUILD)/cli/main.o $(BUILD)/libkinf.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libkinf.a: $(OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: src/%.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(BUILD)/libkinf.a | $(BUILD)
	@mkdir -p $(BUILD)/unit
	$(CC) $(CPPFLAGS) -Itests/unit $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libkinf.a $(LDLIBS)

$(BUILD):
	@mkdir -p $(BUILD)

-include $(OBJS:.o=.d) $(BUILD)/cli/main.d

# Installs missing build and test dependencies (apt-get as root, or
# prints the exact command to run).
deps:
	@tests/deps

# check's builds use every core (a fresh clone's two builds: 96 s one at
# a time, about a minute so on two cores).
NPROC := $(shell nproc 2>/dev/null || echo 2)

check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) kinf units
	@$(MAKE) --no-print-directory -j$(NPROC) SANITIZE=$(REPLAY_SANITIZE) fuzz-replay
	@KINF=$(CURDIR)/$(BUILD)/kinf UNIT_DIR=$(CURDIR)/$(BUILD)/unit \
		FUZZ_DIR=$(CURDIR)/build/$(subst $(comma),-,$(REPLAY_SANITIZE))/fuzz tests/run

# Only the C unit tests (quick; also what SANITIZE=thread is meant for).
check-unit: units
	@UNIT_DIR=$(CURDIR)/$(BUILD)/unit tests/run --unit-only

units: $(UNIT_BINS)

demo: deps
	@$(MAKE) --no-print-directory kinf
	@tests/apiserver/demo

# A simulated cluster with churn to try kinf on, until Ctrl-C.
playground: deps
	@$(MAKE) --no-print-directory kinf
	@tests/apiserver/playground

bench: deps
	@$(MAKE) --no-print-directory kinf
	@tests/bench/run
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/bench/features
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/bench/tui
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/bench/scale

# make fuzz [FUZZ_SECONDS=N]: libFuzzer on every parser of outside input.
include tests/fuzz/fuzz.mk

# make soak [MINUTES=N]: kinf against churn and every fault kube-sim has,
# each client-go profile at once, the cache checked against the truth and
# RSS, fds and threads read every minute (tests/bench/soak).
MINUTES ?= 30
soak: deps
	@$(MAKE) --no-print-directory kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/bench/soak $(MINUTES)

# make flight-soak [MINUTES=N]: the flight recorder's memory at 2,000
# changes/s beside a plain watch, read every minute; not part of bench.
flight-soak: deps
	@$(MAKE) --no-print-directory kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/bench/features --flight-soak $(MINUTES)

# make valgrind: memcheck over a watch ended by SIGINT and a TUI ended by q.
valgrind: deps
	@$(MAKE) --no-print-directory kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/run tests/52-valgrind.bats

# make golden: every scenario of tests/client-go through the real client-go
# peers (tests/client-go/build makes them; needs Go, never part of check).
golden:
	@tests/client-go/record

# make fuzz-client-go: the differential fuzzer, random scripts through the
# same peers and kinf (never part of check); FUZZ_ARGS as its header says,
# e.g. FUZZ_ARGS="--seed 7 --minutes 30 --shrink".
fuzz-client-go: kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/client-go/fuzz $(FUZZ_ARGS)

# make fuzz-controller: the controller view against the real
# controller-runtime on random scripts (tests/client-go/controller/build
# makes the peers; never part of check); FUZZ_ARGS as its header says,
# e.g. FUZZ_ARGS="--seed 7 --minutes 30 --releases '0.20 0.24'".
fuzz-controller: kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/client-go/controller/fuzz $(FUZZ_ARGS)

# make fuzz-kubectl: kinf get against kubectl get on random command lines
# over one kube-sim (never part of check); FUZZ_ARGS as tests/kubectl/fuzz
# says, e.g. FUZZ_ARGS="--seed 7 --count 500".
fuzz-kubectl: kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/kubectl/fuzz $(FUZZ_ARGS)

# make fuzz-templates: kinf's go-template, jsonpath and custom columns
# against kubectl's on random templates (never part of check); FUZZ_ARGS
# as tests/kubectl/fuzz-templates says.
fuzz-templates: kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/kubectl/fuzz-templates $(FUZZ_ARGS)

# make fuzz-kubeconfig: how kinf reads kubeconfigs, their merges and
# kubectl's flags, against kubectl on random ones (never part of check);
# FUZZ_ARGS as tests/kubectl/fuzz-kubeconfig says.
fuzz-kubeconfig: kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/kubectl/fuzz-kubeconfig $(FUZZ_ARGS)

# make check-libcurl-backports: the HTTP/2 tests and client-go goldens with
# the libcurl of bookworm-backports (Debian 13's) loaded in place of the
# system's: the health check's PING depends on libcurl's insides
# (src/cluster/h2ping.h), and so does what becomes of a lost connection.
check-libcurl-backports: deps
	@$(MAKE) --no-print-directory kinf
	@KINF=$(CURDIR)/$(BUILD)/kinf tests/libcurl-backports

lint-man:
	mandoc -T lint -W warning man/kinf.1

install: kinf
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BUILD)/kinf $(DESTDIR)$(BINDIR)/kinf
	ln -sf kinf $(DESTDIR)$(BINDIR)/kubectl-kinf	# the kubectl plugin: kubectl kinf ...
	install -m 755 completions/kubectl_complete-kinf $(DESTDIR)$(BINDIR)/kubectl_complete-kinf	# kubectl kinf <TAB> (kubectl 1.26+)
	install -m 644 man/kinf.1 $(DESTDIR)$(MANDIR)/man1/kinf.1
	install -m 644 completions/kinf.bash $(DESTDIR)$(BASHCOMPDIR)/kinf
	install -m 644 completions/_kinf $(DESTDIR)$(ZSHCOMPDIR)/_kinf
	install -m 644 completions/kinf.fish $(DESTDIR)$(FISHCOMPDIR)/kinf.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kinf $(DESTDIR)$(BINDIR)/kubectl-kinf \
		$(DESTDIR)$(BINDIR)/kubectl_complete-kinf $(DESTDIR)$(MANDIR)/man1/kinf.1 \
		$(DESTDIR)$(BASHCOMPDIR)/kinf $(DESTDIR)$(ZSHCOMPDIR)/_kinf \
		$(DESTDIR)$(FISHCOMPDIR)/kinf.fish

clean:
	rm -rf build kinf

.PHONY: all kinf deps check check-unit check-libcurl-backports units demo playground bench soak flight-soak valgrind golden fuzz-client-go fuzz-controller fuzz-kubectl fuzz-templates fuzz-kubeconfig lint-man install uninstall clean
