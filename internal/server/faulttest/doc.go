// Package faulttest runs `gpuscout serve` as a real process and attacks it:
// the kill -9 fault test (every upload acknowledged with a 2xx survives a
// crash and a restart, and no stored document is half-written) and the
// security tests (tokens, body limit, escaping, SQL metacharacters). The
// server process is this test binary re-executed as gpuscout (no go build).
// It has tests only.
package faulttest
