//go:build unix

package doctor

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group: a hung nvidia-smi or a python3 whose
// import spawned workers leaves nothing behind.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
