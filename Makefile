# gpuscout: common tasks. `make test` is what CI runs (.ci/run).
.PHONY: build test bench generate fuzz golden clean

build:
	CGO_ENABLED=0 go build -o bin/gpuscout ./cmd/gpuscout

test:
	scripts/test.sh

bench:
	scripts/bench.sh

# Regenerate the embedded offerings snapshot from ../shared/data and data/curated.
generate:
	go generate ./internal/catalog

# Longer fuzzing of every parser (FUZZTIME per target).
fuzz:
	FUZZTIME=$${FUZZTIME:-60s} scripts/test.sh

# Rewrite the CLI golden files after an intended output change.
golden:
	go test ./internal/cli -update

clean:
	rm -rf bin
