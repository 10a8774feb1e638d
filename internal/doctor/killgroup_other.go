//go:build !unix

package doctor

import "os/exec"

// killGroup: elsewhere the context's kill of the program itself, with
// Run's WaitDelay, is all there is.
func killGroup(*exec.Cmd) {}
