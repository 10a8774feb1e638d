//go:build race

package dltest

// RaceDetector is true in a binary built with -race.
const RaceDetector = true
