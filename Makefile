# Steward: `make demo` runs the main job on the bundled example; `make test` runs every test.
SWIFT ?= swift
STEWARD := .build/debug/steward
DEMO := .demo

# Where `make install` puts things (GNU conventions; DESTDIR stages into another root).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

# The version is written once, in StewardVersion.swift; the package and the man pages read it here.
VERSION := $(shell sed -n 's/^ *public static let current = "\([^"]*\)"$$/\1/p' Sources/StewardCore/StewardVersion.swift)
STAMP := Sources/StewardCore/BuildStamp.generated.swift
SOURCES := Package.swift $(shell find Sources -type f ! -name '*.generated.swift')
RELEASE := .build/release/steward
# What install copies: the stripped binary, gzipped pages, completion scripts.
SHIP := .build/ship
PAGES := $(notdir $(wildcard man/*.1))
SHIPPED := $(SHIP)/steward $(PAGES:%=$(SHIP)/man/%.gz) \
	$(SHIP)/completions/steward.bash $(SHIP)/completions/_steward $(SHIP)/completions/steward.fish
INSTALLED = $(DESTDIR)$(BINDIR)/steward $(PAGES:%=$(DESTDIR)$(MANDIR)/man1/%.gz) \
	$(DESTDIR)$(BASHCOMPDIR)/steward $(DESTDIR)$(ZSHCOMPDIR)/_steward $(DESTDIR)$(FISHCOMPDIR)/steward.fish

.PHONY: all deps deps-package build test package-test demo bench release install uninstall deb clean FORCE

all: build

deps:
	@sh scripts/install-deps.sh

# What building the Debian package and its acceptance test need besides the build itself.
deps-package:
	@sh scripts/install-deps.sh packaging

build: deps $(STAMP)
	$(SWIFT) build

test: deps deps-package $(STAMP)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@MAKE="$(MAKE)" sh scripts/package-test.sh

# The packaging acceptance test alone (part of `make test`).
package-test: deps deps-package
	@MAKE="$(MAKE)" sh scripts/package-test.sh

demo: build
	@sh scripts/demo.sh $(STEWARD) $(DEMO)

# Rewritten only when the commit changes, so make rebuilds only then.
$(STAMP): FORCE
	@sh scripts/stamp-build.sh

# The Swift standard library linked in, so the binary runs where there is no Swift;
# no $ORIGIN run path, which Debian forbids and nothing here needs; full RELRO.
$(RELEASE): $(SOURCES) $(STAMP) Makefile | deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --product steward \
		-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
	@touch $@

release: $(SHIPPED)

$(SHIP)/steward: $(RELEASE)
	@mkdir -p $(@D)
	strip --strip-unneeded --remove-section=.comment --remove-section=.note -o $@.tmp $<
	@mv $@.tmp $@

# The page's .TH line gets the version from StewardVersion.swift, whatever the source says.
$(SHIP)/man/%.1.gz: man/%.1 Sources/StewardCore/StewardVersion.swift
	@mkdir -p $(@D)
	sed '/^\.TH /s/^\(\.TH [^ ]* [^ ]* [^ ]*\) "[^"]*"/\1 "Steward $(VERSION)"/' $< > $@.page
	gzip -9n < $@.page > $@.tmp
	@rm -f $@.page && mv $@.tmp $@

$(SHIP)/completions/steward.bash: $(SHIP)/steward
	@mkdir -p $(@D)
	$(SHIP)/steward completions bash > $@.tmp && mv $@.tmp $@

$(SHIP)/completions/_steward: $(SHIP)/steward
	@mkdir -p $(@D)
	$(SHIP)/steward completions zsh > $@.tmp && mv $@.tmp $@

$(SHIP)/completions/steward.fish: $(SHIP)/steward
	@mkdir -p $(@D)
	$(SHIP)/steward completions fish > $@.tmp && mv $@.tmp $@

install: $(SHIPPED)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(SHIP)/steward $(DESTDIR)$(BINDIR)/steward
	install -m 0644 $(PAGES:%=$(SHIP)/man/%.gz) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(SHIP)/completions/steward.bash $(DESTDIR)$(BASHCOMPDIR)/steward
	install -m 0644 $(SHIP)/completions/_steward $(DESTDIR)$(ZSHCOMPDIR)/_steward
	install -m 0644 $(SHIP)/completions/steward.fish $(DESTDIR)$(FISHCOMPDIR)/steward.fish

# Removes the files install wrote; under a DESTDIR also the directories left empty.
uninstall:
	rm -f $(INSTALLED)
	@sh scripts/remove-empty-dirs.sh "$(DESTDIR)" $(INSTALLED)

deb: $(SHIPPED) | deps-package
	@MAKE="$(MAKE)" sh scripts/build-deb.sh "$(VERSION)" .

clean:
	rm -rf .build $(DEMO) $(STAMP) steward_*.deb
