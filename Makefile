# Steward: `make demo` runs the main job on the bundled example; `make test` runs every test.
SWIFT ?= swift
STEWARD := .build/debug/steward
DEMO := .demo

.PHONY: all deps build test demo bench clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: build
	@sh scripts/demo.sh $(STEWARD) $(DEMO)

clean:
	rm -rf .build $(DEMO)
