# benchtop - build, run, check, bench, fuzz, install.
# `make run` and `make check` first install missing Debian packages (as root)
# or print the exact apt-get line and stop (as non-root).

PREFIX   ?= /usr/local
DESTDIR  ?=
BINDIR    = $(PREFIX)/bin
MANDIR    = $(PREFIX)/share/man/man1
SHAREDIR  = $(PREFIX)/share/benchtop

CC       ?= cc
PKGS      = ncursesw libproc2 libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN      = -Wall -Wextra -Werror -Wno-error=deprecated-declarations -Wno-format-truncation
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c17 -D_GNU_SOURCE $(WARN) -Iinclude $(PKG_CFLAGS) \
             -DBENCHTOP_SHAREDIR='"$(SHAREDIR)"' $(CFLAGS)
LDLIBS    = $(PKG_LIBS) -lm

# The presets and themes shipped with benchtop are compiled in (src/embed.sh).
EMBED    := $(sort $(wildcard presets/*.preset)) $(sort $(wildcard themes/*.theme))
GEN_C    := build/gen/builtin_files.c
SRCS     := $(sort $(wildcard src/*.c src/*/*.c src/work/engines/*.c)) $(GEN_C)
LIBSRCS  := $(filter-out src/main.c,$(SRCS))
OBJS     := $(SRCS:%.c=build/%.o)
LIBOBJS  := $(LIBSRCS:%.c=build/%.o)
SAN       = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SOBJS    := $(SRCS:%.c=build/san/%.o)
SLIBOBJS := $(LIBSRCS:%.c=build/san/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/san/tests/%)

# Debian packages the build and the tests need.
BUILD_DEBS = gcc make pkg-config libncurses-dev libproc2-dev libmicrohttpd-dev
TEST_DEBS  = libcmocka-dev tmux rsync cpio jq man-db bsdutils coreutils procps util-linux \
             prometheus prometheus-node-exporter curl gzip bonnie++ iproute2 python3 e2fsprogs
FUZZ_DEBS  = clang libclang-rt-dev
BENCH_DEBS = valgrind

.PHONY: all run check check-loaded unit e2e bench fuzz install uninstall clean deps deps-test deps-fuzz deps-bench

all: benchtop

benchtop: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LDLIBS)

# The share directory is compiled in: a new PREFIX rebuilds the objects.
SHAREDIR_STAMP := build/sharedir.stamp
$(shell mkdir -p build; [ "$$(cat $(SHAREDIR_STAMP) 2>/dev/null)" = "$(SHAREDIR)" ] || echo "$(SHAREDIR)" > $(SHAREDIR_STAMP))

$(GEN_C): src/embed.sh $(EMBED)
	@mkdir -p $(dir $@)
	sh src/embed.sh $(EMBED) > $@.tmp && mv $@.tmp $@

build/%.o: %.c $(SHAREDIR_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

build/san/%.o: %.c $(SHAREDIR_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) -O1 -MMD -MP -c -o $@ $<

build/san/benchtop: $(SOBJS)
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $(SOBJS) $(LDFLAGS) $(LDLIBS)

build/san/libbenchtop.a: $(SLIBOBJS)
	rm -f $@
	ar rcs $@ $(SLIBOBJS)

# Unit tests link the archive, so each pulls in only the modules it uses.
# tests/fake_kernel.sh's kernel, in C (the script builds it when absent)
build/tests/fake_kernel: tests/helpers/fake_kernel.c
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -O1 -Wall -Wextra -Werror -Wno-format-truncation -o $@ $<

build/san/tests/%: tests/unit/%.c build/san/libbenchtop.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) -O1 -MMD -MP -o $@ $< build/san/libbenchtop.a $(LDFLAGS) $(LDLIBS) -lcmocka

-include $(OBJS:.o=.d) $(SOBJS:.o=.d) $(UNIT_BINS:=.d)

# deps: install what is missing (root) or print the line (non-root).
define need_debs
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -qE '^install ok (installed|triggers-pending|triggers-awaited)' || printf '%s ' $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "benchtop: installing missing packages: $$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y $$missing || { apt-get -o DPkg::Lock::Timeout=600 update && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y $$missing; } || exit 1; \
	  else \
	    echo "benchtop: missing packages; run as root:"; echo "  apt-get install -y $$missing"; exit 1; \
	  fi; \
	fi
endef

# Each target checks everything it needs at once, so a non-root user gets
# one complete apt-get line.
deps:
	$(call need_debs,$(BUILD_DEBS))
deps-test:
	$(call need_debs,$(BUILD_DEBS) $(TEST_DEBS))
deps-fuzz:
	$(call need_debs,$(BUILD_DEBS) $(FUZZ_DEBS))
deps-bench:
	$(call need_debs,$(BUILD_DEBS) $(TEST_DEBS) $(BENCH_DEBS))

run: deps
	$(MAKE) benchtop
	./benchtop $(ARGS)

unit: deps-test
	$(MAKE) $(UNIT_BINS)

# The unit tests and the e2e scripts run side by side (tests/run.sh; JOBS=N
# sets how many at once).  check-loaded runs the same suite beside two
# busy loops: nothing in it may depend on an idle machine (LOAD=N for N).
LOAD ?= 0
# The build runs on every CPU unless make was given its own -j.
NPROC := $(shell nproc 2>/dev/null || echo 2)
check: deps-test
	$(MAKE) $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC)) benchtop build/san/benchtop $(UNIT_BINS) build/tests/fake_kernel
	LOAD=$(LOAD) tests/run.sh $(UNIT_BINS)

check-loaded:
	$(MAKE) LOAD=2 check

bench: deps-bench
	$(MAKE) benchtop
	bench/run.sh

# make fuzz: every tests/fuzz/fuzz_NAME.c harness (one per parser that
# reads outside input, the HTTP handler, the sysfs and /proc readers, the
# replay's rendering) is built with libFuzzer, ASan and UBSan against the
# whole library and run for FUZZ_SECONDS, each on its own corpus
# (build/fuzz/corpus/NAME, seeded from tests/fuzz/corpus/NAME).  Every
# harness runs even after one has found something; each finding leaves its
# crash file in build/fuzz, and the target fails at the end naming them all.
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_CFLAGS = -std=c17 -D_GNU_SOURCE -Iinclude $(PKG_CFLAGS) -DBENCHTOP_SHAREDIR='"$(SHAREDIR)"' \
              -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS := $(LIBSRCS:%.c=build/fuzz/obj/%.o)
# kept between runs (make would remove them as intermediate files)
.SECONDARY: $(FUZZ_OBJS)

build/fuzz/obj/%.o: %.c $(SHAREDIR_STAMP)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OBJS)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS) -lm

-include $(FUZZ_OBJS:.o=.d)

fuzz: deps-fuzz
	$(MAKE) $(FUZZ_HARNESSES:%=build/fuzz/fuzz_%)
	@found=""; for h in $(FUZZ_HARNESSES); do \
	  mkdir -p build/fuzz/corpus/$$h; \
	  cp -n tests/fuzz/corpus/$$h/* build/fuzz/corpus/$$h/ 2>/dev/null; \
	  echo "fuzz_$$h: $(FUZZ_SECONDS) s"; \
	  (cd build/fuzz && ./fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -timeout=5 -rss_limit_mb=2048 \
	    -artifact_prefix=fuzz_$$h- -print_final_stats=1 corpus/$$h > fuzz_$$h.log 2>&1); rc=$$?; \
	  grep -E '^stat::number_of_executed_units|^Done' build/fuzz/fuzz_$$h.log; \
	  if [ $$rc != 0 ]; then tail -40 build/fuzz/fuzz_$$h.log; echo "fuzz_$$h: a finding (see build/fuzz/fuzz_$$h.log)"; \
	    found="$$found fuzz_$$h"; fi; \
	done; \
	if [ -n "$$found" ]; then echo "fuzz: findings in$$found"; exit 1; fi; echo "fuzz: nothing found"

install: benchtop
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(SHAREDIR)/themes $(DESTDIR)$(SHAREDIR)/presets
	install -m 755 benchtop $(DESTDIR)$(BINDIR)/benchtop
	install -m 644 man/benchtop.1 $(DESTDIR)$(MANDIR)/benchtop.1
	install -m 644 themes/*.theme $(DESTDIR)$(SHAREDIR)/themes/
	if ls presets/* >/dev/null 2>&1; then install -m 644 presets/* $(DESTDIR)$(SHAREDIR)/presets/; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/benchtop $(DESTDIR)$(MANDIR)/benchtop.1
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -rf build benchtop
