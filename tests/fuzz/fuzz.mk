# tests/fuzz/fuzz.mk — the fuzz targets; included by the top Makefile.
#
# Each tests/fuzz/NAME_fuzz.c defines LLVMFuzzerTestOneInput() for one
# parser of outside input and is linked two ways against libkinf.a:
#
#   $(BUILD)/fuzz/NAME_fuzz     with libFuzzer (clang): `make fuzz`
#   $(BUILD)/fuzz/NAME_replay   with replay.c's main(), any compiler: feeds
#                               each file of tests/fuzz/corpus/NAME/ once;
#                               make check builds it with ASan and UBSan
#                               and tests/51-fuzz-replay.bats runs it.

FUZZ_TARGETS := $(patsubst tests/fuzz/%_fuzz.c,%,$(wildcard tests/fuzz/*_fuzz.c))
FUZZ_SECONDS ?= 60
# What `make fuzz` and `make check` build the fuzz programs with.
FUZZ_SANITIZE   := fuzzer-no-link,address,undefined
REPLAY_SANITIZE := address,undefined

$(BUILD)/fuzz/%_replay: tests/fuzz/%_fuzz.c tests/fuzz/fuzz.h tests/fuzz/replay.c $(BUILD)/libkinf.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		$(BUILD)/libkinf.a $(LDLIBS)

$(BUILD)/fuzz/%_fuzz: tests/fuzz/%_fuzz.c tests/fuzz/fuzz.h $(BUILD)/libkinf.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(BUILD)/libkinf.a $(LDLIBS)

fuzz-replay: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%_replay)
fuzz-build: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%_fuzz)

# Fuzzes every target for FUZZ_SECONDS; a crash leaves its input in
# tests/fuzz/crashes/NAME/ and fails.  FUZZ_TARGETS=name limits the run.
fuzz:
	@tests/deps --fuzz
	@$(MAKE) --no-print-directory CC=clang SANITIZE=$(FUZZ_SANITIZE) fuzz-build
	@tests/fuzz/run $(FUZZ_SECONDS) build/$(subst $(comma),-,$(FUZZ_SANITIZE))/fuzz $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build fuzz-replay
