# sandprobe build. `make` builds build/sandprobe (all verbs) and the static
# in-sandbox binary build/sandprobe-doctor. `make SAN=1` builds the same into
# build-san/ with AddressSanitizer and UndefinedBehaviorSanitizer.
# `make check` runs the whole test suite (tests/run).
#
# CPPFLAGS, CFLAGS and LDFLAGS are the user's (environment or command line, as
# dpkg-buildflags exports them) and are added after the project's own flags,
# which live in SP_*FLAGS; CFLAGS defaults to the optimisation level only.
# Hardening is on by default (fortify, stack protector and clash protection,
# CET, PIE, full RELRO); a _FORTIFY_SOURCE the user gives wins.
# Libraries come from pkg-config ($(PKG_CONFIG)).

.DEFAULT_GOAL := all
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
SAN ?= 0
WERROR ?= -Werror

ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT = -O1 -g
DOCTOR_LINK =
FORTIFY =
else
BUILD ?= build
SANFLAGS =
OPT = -O2 -g
DOCTOR_LINK = -static-pie
FORTIFY = $(if $(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),,-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2)
endif

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || cat VERSION 2>/dev/null || echo 0.1.0)
COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)

WARN = -Wall -Wextra $(WERROR) -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
       -Wformat=2 -Wswitch-enum -Wpointer-arith -Wvla -Wnull-dereference \
       -Wimplicit-fallthrough -Wundef -Wno-format-nonliteral -Wno-format-truncation
# the target's control-flow protection: CET on x86, PAC/BTI on aarch64
TARGET_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(filter aarch64-%,$(TARGET_MACHINE)),)
CFPROT = -mbranch-protection=standard
else
CFPROT = -fcf-protection
endif
HARDEN = -fstack-protector-strong -fstack-clash-protection $(CFPROT)
STRIP ?= strip
CFLAGS ?= $(OPT)

# libraries, through pkg-config; the doctor links the static archives
FULL_PKGS = jansson inih yaml-0.1 libssl libcrypto libseccomp libnghttp2
# the doctor's tls.* handshakes and its SHA-256 use mbedTLS (made for small
# static binaries; static OpenSSL made the doctor 6 MB and warned about
# getaddrinfo at link time); the host verbs keep OpenSSL for evidence
DOCTOR_PKGS = jansson inih
# Debian's mbedTLS 2.28 ships no pkg-config file
MBEDTLS_LIBS ?= -lmbedtls -lmbedx509 -lmbedcrypto
# DOCTOR_ONLY=1 (the cross builds below): only the doctor's libraries are needed
ifeq ($(DOCTOR_ONLY),1)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DOCTOR_PKGS) 2>/dev/null)
FULL_LIBS := $(shell $(PKG_CONFIG) --libs $(DOCTOR_PKGS) 2>/dev/null)
NEEDED_PKGS = $(DOCTOR_PKGS)
else
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(FULL_PKGS) 2>/dev/null)
FULL_LIBS := $(shell $(PKG_CONFIG) --libs $(FULL_PKGS) 2>/dev/null)
NEEDED_PKGS = $(FULL_PKGS)
endif
DOCTOR_PKG_LIBS := $(shell $(PKG_CONFIG) $(if $(DOCTOR_LINK),--static) --libs $(DOCTOR_PKGS) 2>/dev/null)
ifeq ($(FULL_LIBS),)
ifeq ($(filter clean uninstall,$(MAKECMDGOALS)),)
$(error $(PKG_CONFIG) finds none of $(NEEDED_PKGS): install pkg-config and the -dev packages (tools/deps.sh))
endif
endif
FULL_LIBS += $(MBEDTLS_LIBS) -lm -lpthread
DOCTOR_LIBS = $(DOCTOR_PKG_LIBS) $(MBEDTLS_LIBS) -lm -lpthread

SP_CPPFLAGS = -D_GNU_SOURCE -Isrc -I$(BUILD)/gen $(FORTIFY) \
	      -DSP_VERSION='"$(VERSION)"' -DSP_COMMIT='"$(COMMIT)"' $(PKG_CFLAGS) $(CPPFLAGS)
SP_CFLAGS = -std=gnu11 $(WARN) $(HARDEN) $(SANFLAGS) -ffunction-sections -fdata-sections -MMD -MP $(CFLAGS)
SP_LDFLAGS = $(SANFLAGS) -Wl,--gc-sections -Wl,-z,relro -Wl,-z,now $(LDFLAGS)

# objects are rebuilt when the flags change (the version string aside)
FLAGS_SIG := $(shell printf '%s\n' '$(subst ','"'"',$(CC) $(filter-out -DSP_VERSION=% -DSP_COMMIT=% -I$(BUILD)/gen,$(SP_CPPFLAGS)) $(SP_CFLAGS) $(SP_LDFLAGS) $(DOCTOR_LINK))' | sha256sum | cut -c1-16)
FLAGS_STAMP := $(BUILD)/flags-$(FLAGS_SIG)
$(FLAGS_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/flags-*
	@touch $@

# every .c under src/ but main.c; the doctor subset is what the static binary carries
ALL_SRC := $(shell find src -name '*.c' ! -name main.c | sort)
DOCTOR_SRC := $(filter src/core/% src/checks/%,$(ALL_SRC)) src/catalog/catalog.c src/cmd/doctor.c src/cmd/common.c src/cmd/live_lane.c
GEN_SRC := $(BUILD)/gen/policies.c
POLICIES := $(sort $(wildcard policies/*.ini))

ALL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(ALL_SRC)) $(BUILD)/obj/gen/policies.o
DOCTOR_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(DOCTOR_SRC)) $(BUILD)/obj/gen/policies.o

UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(HELPER_SRC))

.PHONY: all check install install-doctor uninstall clean tests fuzz
ifeq ($(DOCTOR_ONLY),1)
all: $(BUILD)/sandprobe-doctor
else
all: $(BUILD)/sandprobe $(BUILD)/sandprobe-doctor
endif

$(BUILD)/gen/policies.c: $(POLICIES) tools/embed-policies.sh
	@mkdir -p $(dir $@)
	tools/embed-policies.sh $@ $(POLICIES)

$(BUILD)/obj/gen/policies.o: $(BUILD)/gen/policies.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(SP_CPPFLAGS) $(SP_CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(SP_CPPFLAGS) $(SP_CFLAGS) -c $< -o $@

$(BUILD)/obj/main-doctor.o: src/main.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $< (doctor only)"
	@$(CC) $(SP_CPPFLAGS) -DSP_DOCTOR_ONLY $(SP_CFLAGS) -c $< -o $@

$(BUILD)/libsp.a: $(ALL_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/sandprobe: $(BUILD)/obj/src/main.o $(BUILD)/libsp.a
	@echo "  LINK    $@"
	@$(CC) $(SP_LDFLAGS) -o $@ $^ $(FULL_LIBS)

$(BUILD)/sandprobe-doctor: $(BUILD)/obj/main-doctor.o $(DOCTOR_OBJ)
	@echo "  LINK    $@"
	@$(CC) $(SP_LDFLAGS) $(DOCTOR_LINK) -o $@ $^ $(DOCTOR_LIBS)
ifneq ($(SAN),1)
	@$(STRIP) --strip-unneeded $@
endif

# the static doctor for arm64 guests, cross-built with Debian's toolchain
# (gcc-aarch64-linux-gnu and the arm64 multiarch -dev packages, tools/deps.sh
# --cross arm64) into build-arm64/; tests/doctor/arm64.t runs it under
# qemu-user. `make image-arm64` puts it in the FROM scratch image for arm64.
ARM64_TRIPLET = aarch64-linux-gnu
ARM64_MAKE = $(MAKE) --no-print-directory BUILD=build-arm64 DOCTOR_ONLY=1 SAN=0 \
	CC=$(ARM64_TRIPLET)-gcc STRIP=$(ARM64_TRIPLET)-strip \
	PKG_CONFIG='env PKG_CONFIG_LIBDIR=/usr/lib/$(ARM64_TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config'
.PHONY: doctor-arm64 image-arm64
doctor-arm64:
	+@$(ARM64_MAKE) build-arm64/sandprobe-doctor

# podman builds the arm64 image from the cross-built binary (no emulation
# needed: the image runs nothing at build time)
image-arm64: doctor-arm64
	podman build --arch arm64 --build-arg DOCTOR=build-arm64/sandprobe-doctor \
		-f Containerfile -t sandprobe-doctor:arm64 .

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libsp.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  TEST    $<"
	@$(CC) $(SP_CPPFLAGS) -Itests $(SP_CFLAGS) $(SP_LDFLAGS) -o $@ $< $(BUILD)/libsp.a $(FULL_LIBS)

# helpers are static and never sanitized: they run inside sandboxes
$(BUILD)/tests/helpers/%: tests/helpers/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  HELPER  $<"
	@$(CC) $(SP_CPPFLAGS) -std=gnu11 $(WARN) -O2 -static -o $@ $< -lseccomp

tests: all $(UNIT_BIN) $(HELPER_BIN)

check: tests
	tests/run

# libFuzzer harnesses (clang), one per parser of untrusted input. The
# library is built once with coverage instrumentation into build-fuzz/.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_SRC := $(filter-out src/cmd/%,$(ALL_SRC)) $(sort $(wildcard tests/fuzz/lib/*.c))
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

# installed layout; `make uninstall` with the same PREFIX/DESTDIR removes it
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/sandprobe
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
MAN1 := $(sort $(wildcard docs/man/*.1))
MAN7 := $(sort $(wildcard docs/man/*.7))
WORKLOADS := $(sort $(wildcard workloads/*.yaml))
SCHEMAS := $(sort $(wildcard docs/schema/*.json))
INSTALLED = $(BINDIR)/sandprobe $(BINDIR)/sandprobe-doctor \
	$(patsubst docs/man/%,$(MANDIR)/man1/%,$(MAN1)) $(patsubst docs/man/%,$(MANDIR)/man7/%,$(MAN7)) \
	$(patsubst %,$(DATADIR)/%,$(POLICIES) $(WORKLOADS)) $(patsubst docs/%,$(DATADIR)/%,$(SCHEMAS)) \
	$(BASHCOMPDIR)/sandprobe $(ZSHCOMPDIR)/_sandprobe $(FISHCOMPDIR)/sandprobe.fish

install: install-doctor
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(DATADIR)/policies $(DESTDIR)$(DATADIR)/workloads
	install -m 0755 $(BUILD)/sandprobe $(DESTDIR)$(BINDIR)/
	install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(WORKLOADS) $(DESTDIR)$(DATADIR)/workloads/
	install -m 0644 $(POLICIES) $(DESTDIR)$(DATADIR)/policies/
	install -d $(DESTDIR)$(DATADIR)/schema
	install -m 0644 $(SCHEMAS) $(DESTDIR)$(DATADIR)/schema/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/sandprobe.bash $(DESTDIR)$(BASHCOMPDIR)/sandprobe
	install -m 0644 completions/_sandprobe $(DESTDIR)$(ZSHCOMPDIR)/_sandprobe
	install -m 0644 completions/sandprobe.fish $(DESTDIR)$(FISHCOMPDIR)/sandprobe.fish

# the static doctor alone (Debian's sandprobe-doctor package, the image)
install-doctor: all
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BUILD)/sandprobe-doctor $(DESTDIR)$(BINDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DATADIR)/policies $(DESTDIR)$(DATADIR)/workloads $(DESTDIR)$(DATADIR)/schema \
		$(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf build build-san build-fuzz build-arm64

-include $(shell find $(BUILD)/obj build-fuzz/obj -name '*.d' 2>/dev/null)
