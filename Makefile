# sandprobe build. `make` builds build/sandprobe (all verbs) and the static
# in-sandbox binary build/sandprobe-doctor. `make SAN=1` builds the same into
# build-san/ with AddressSanitizer and UndefinedBehaviorSanitizer.
# `make check` runs the whole test suite (tests/run).

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
SAN ?= 0

ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT = -O1 -g
DOCTOR_LINK =
else
BUILD ?= build
SANFLAGS =
OPT = -O2 -g
DOCTOR_LINK = -static
endif

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)

WARN = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
       -Wformat=2 -Wswitch-enum -Wpointer-arith -Wvla -Wnull-dereference \
       -Wimplicit-fallthrough -Wundef -Wno-format-nonliteral -Wno-format-truncation
CPPFLAGS += -D_GNU_SOURCE -Isrc -I$(BUILD)/gen \
	    -DSP_VERSION='"$(VERSION)"' -DSP_COMMIT='"$(COMMIT)"'
CFLAGS ?= $(OPT)
CFLAGS += -std=gnu11 $(WARN) $(SANFLAGS) -fstack-protector-strong -ffunction-sections -fdata-sections -MMD -MP
LDFLAGS += $(SANFLAGS) -Wl,--gc-sections

# the doctor carries OpenSSL (libssl, libcrypto) for its tls.* handshakes
DOCTOR_LIBS = -ljansson -linih -lssl -lcrypto -lm -lpthread
FULL_LIBS = -ljansson -linih -lyaml -lssl -lcrypto -lseccomp -lm -lpthread

# every .c under src/ but main.c; the doctor subset is what the static binary carries
ALL_SRC := $(shell find src -name '*.c' ! -name main.c | sort)
DOCTOR_SRC := $(filter src/core/% src/checks/%,$(ALL_SRC)) src/cmd/doctor.c
GEN_SRC := $(BUILD)/gen/policies.c
POLICIES := $(sort $(wildcard policies/*.ini))

ALL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(ALL_SRC)) $(BUILD)/obj/gen/policies.o
DOCTOR_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(DOCTOR_SRC)) $(BUILD)/obj/gen/policies.o

UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(HELPER_SRC))

.PHONY: all check install clean tests fuzz
all: $(BUILD)/sandprobe $(BUILD)/sandprobe-doctor

$(BUILD)/gen/policies.c: $(POLICIES) tools/embed-policies.sh
	@mkdir -p $(dir $@)
	tools/embed-policies.sh $@ $(POLICIES)

$(BUILD)/obj/gen/policies.o: $(BUILD)/gen/policies.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/main-doctor.o: src/main.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (doctor only)"
	@$(CC) $(CPPFLAGS) -DSP_DOCTOR_ONLY $(CFLAGS) -c $< -o $@

$(BUILD)/libsp.a: $(ALL_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/sandprobe: $(BUILD)/obj/src/main.o $(BUILD)/libsp.a
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(FULL_LIBS)

$(BUILD)/sandprobe-doctor: $(BUILD)/obj/main-doctor.o $(DOCTOR_OBJ)
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) $(DOCTOR_LINK) -o $@ $^ $(DOCTOR_LIBS)
ifneq ($(SAN),1)
	@strip --strip-unneeded $@
endif

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libsp.a
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libsp.a $(FULL_LIBS)

# helpers are static and never sanitized: they run inside sandboxes
$(BUILD)/tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@echo "  HELPER  $<"
	@$(CC) $(CPPFLAGS) -std=gnu11 $(WARN) -O2 -static -o $@ $< -lseccomp

tests: all $(UNIT_BIN) $(HELPER_BIN)

check: tests
	tests/run

# libFuzzer harnesses (clang), one per parser of untrusted input. The
# library is built once with coverage instrumentation into build-fuzz/.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_SRC := $(filter-out src/cmd/%,$(ALL_SRC))
FUZZ_FLAGS = -D_GNU_SOURCE -Isrc -Ibuild-fuzz/gen -g -O1 -fsanitize=fuzzer-no-link,address,undefined -MMD -MP
FUZZ_OBJ := $(patsubst %.c,build-fuzz/obj/%.o,$(FUZZ_LIB_SRC)) build-fuzz/obj/gen/policies.o
fuzz: $(FUZZ_BIN)
build-fuzz/gen/policies.c: $(POLICIES) tools/embed-policies.sh
	@mkdir -p $(dir $@)
	@tools/embed-policies.sh $@ $(POLICIES)
build-fuzz/obj/gen/policies.o: build-fuzz/gen/policies.c
	@mkdir -p $(dir $@)
	@clang $(FUZZ_FLAGS) -c $< -o $@
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@clang $(FUZZ_FLAGS) -c $< -o $@
build-fuzz/libsp-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	@ar rcs $@ $^
build-fuzz/%: tests/fuzz/%.c build-fuzz/libsp-fuzz.a
	@echo "  FUZZ    $@"
	@clang $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< build-fuzz/libsp-fuzz.a $(FULL_LIBS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/sandprobe/policies $(DESTDIR)$(PREFIX)/share/sandprobe/workloads
	install -m 0755 $(BUILD)/sandprobe $(BUILD)/sandprobe-doctor $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 docs/man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 workloads/*.yaml $(DESTDIR)$(PREFIX)/share/sandprobe/workloads/
	install -m 0644 $(POLICIES) $(DESTDIR)$(PREFIX)/share/sandprobe/policies/

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD)/obj build-fuzz/obj -name '*.d' 2>/dev/null)
