//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a new process group and makes cancellation
// kill the whole group, so children the command started die with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
