//go:build !unix

package notify

import "os/exec"

// setProcessGroup leaves cmd as it is: without process groups only the
// command itself is killed at the timeout.
func setProcessGroup(cmd *exec.Cmd) {}
