//go:build race

package faulttest

// raceEnabled: this test binary has the race detector, so every server
// process it starts (itself, re-executed) is race-instrumented and several
// times slower to start and to serve.
const raceEnabled = true
