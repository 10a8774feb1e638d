//go:build !race

package faulttest

// raceEnabled: this test binary has no race detector.
const raceEnabled = false
