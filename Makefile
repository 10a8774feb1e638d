# gpuscout: common tasks. `make test` is what CI runs (.ci/run).
.PHONY: build test bench generate fuzz golden traces validate-spot clean

build:
	CGO_ENABLED=0 go build -o bin/gpuscout ./cmd/gpuscout

test:
	scripts/test.sh

bench:
	scripts/bench.sh

# Regenerate the embedded offerings snapshot from ../shared/data and data/curated.
generate:
	go generate ./internal/catalog

# Longer fuzzing of every parser (FUZZTIME per target: a duration or a count
# of inputs such as 1000000x); only the fuzz step of scripts/test.sh.
fuzz:
	FUZZTIME=$${FUZZTIME:-60s} FUZZMINIMIZE=$${FUZZMINIMIZE:-60s} scripts/test.sh fuzz

# The spot simulator's published validation: closed forms, Daly's optimum, the
# hindsight optimum against brute force and every policy, the reference
# simulator's recorded behaviour; prints a table (not part of make test).
validate-spot:
	go test ./internal/spot -run '^TestValidate$$' -count=1 -v -timeout 30m -validate

# Rewrite the CLI golden files after an intended output change.
golden:
	go test ./internal/cli -update

# Regenerate the synthetic spot traces (internal/spot/testdata/README.md).
traces:
	go run ./cmd/gpuscout spot synth --up 1h --down 2h --length 30d --gap 195s --seed 1 > internal/spot/testdata/volatile_1node.json
	go run ./cmd/gpuscout spot synth --up 8h --down 1h --length 30d --gap 195s --seed 2 > internal/spot/testdata/stable_1node.json
	go run ./cmd/gpuscout spot synth --up 3h --down 1h --length 14d --gap 300s --nodes 4 --price 0.918 --seed 3 > internal/spot/testdata/priced_4node.json

clean:
	rm -rf bin
