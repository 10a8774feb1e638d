package autostop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone reports whether pid has exited (absent, or a zombie nobody reaped).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook wrote no pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// setupTries runs try with a timeout of 300 ms, then 1.2 s, then 4.8 s,
// until the hook it runs has written its pid file before being killed: on a
// busy machine the kill can come first, and such a run proves nothing.
func setupTries(t *testing.T, try func(timeout time.Duration, pidFile string)) (pidFile string) {
	t.Helper()
	for timeout := 300 * time.Millisecond; ; timeout *= 4 {
		pidFile = filepath.Join(t.TempDir(), "child.pid")
		try(timeout, pidFile)
		if _, err := os.Stat(pidFile); err == nil || timeout > 4*time.Second {
			return pidFile
		}
		t.Logf("the hook was killed at %s before it wrote its pid file; trying a longer timeout", timeout)
	}
}

// TestRunCommandHangingHook: a hook that hangs, with a child of its own that
// also holds its stdout, is killed with its whole process group at the
// timeout, and RunCommand returns soon after.
func TestRunCommandHangingHook(t *testing.T) {
	script := `echo started; sleep 120 & echo $! > "$1"; wait`
	var r Result
	var took time.Duration
	pidFile := setupTries(t, func(timeout time.Duration, pidFile string) {
		start := time.Now()
		r = RunCommand(context.Background(), []string{"sh", "-c", script, "hook", pidFile}, timeout)
		took = time.Since(start)
	})
	if !r.TimedOut || !errors.Is(r.Err, ErrTimeout) {
		t.Errorf("RunCommand(hanging) = TimedOut %v, Err %v; want true, ErrTimeout", r.TimedOut, r.Err)
	}
	// Waiting for the hook would take 120 s; the kill at 300 ms (plus at most
	// 1 s WaitDelay) little more: 30 s tells them apart on a busy machine.
	if took > 30*time.Second {
		t.Errorf("RunCommand(hanging) took %s; want about the 300ms timeout (plus at most 1s WaitDelay)", took)
	}
	if r.Output != "started" {
		t.Errorf("output = %q; want %q", r.Output, "started")
	}
	child := readPID(t, pidFile)
	deadline := time.Now().Add(30 * time.Second)
	for !gone(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !gone(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the hook's child %d still runs after the timeout; want it killed with the process group", child)
	}
}

func TestRunCommandOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		wantErr    string
		wantOutput string
	}{
		{"ok", []string{"sh", "-c", "echo out; echo err >&2"}, "", "out\nerr"},
		{"exit status", []string{"sh", "-c", "echo no; exit 3"}, "exit status 3", "no"},
		{"no such program", []string{"/nonexistent/gpuscout-hook"}, "no such file", ""},
		{"empty", nil, "empty command", ""},
		// No shell: a label value full of shell syntax is one argument.
		{"no interpolation", []string{"echo", "$(touch /tmp/x); rm -rf ~"}, "", "$(touch /tmp/x); rm -rf ~"},
		{"output tail kept", []string{"sh", "-c", "head -c 10000 /dev/zero | tr '\\0' a; echo END"}, "", strings.Repeat("a", maxOutput-4) + "END"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RunCommand(context.Background(), tt.argv, 5*time.Second)
			if tt.wantErr == "" && r.Err != nil || tt.wantErr != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), tt.wantErr)) {
				t.Errorf("RunCommand(%q).Err = %v; want %q", tt.argv, r.Err, tt.wantErr)
			}
			if r.Output != tt.wantOutput {
				t.Errorf("RunCommand(%q).Output = %q (%d bytes); want %q", tt.argv, r.Output[:min(len(r.Output), 80)], len(r.Output), tt.wantOutput[:min(len(tt.wantOutput), 80)])
			}
			if r.TimedOut {
				t.Errorf("RunCommand(%q).TimedOut = true; want false", tt.argv)
			}
		})
	}
}

// TestWatcherHangingHook: through the watcher, with real commands, a hook
// that hangs is killed with its children at hook_timeout and the stop
// command runs after it.
func TestWatcherHangingHook(t *testing.T) {
	var stopped string
	var took time.Duration
	pidFile := setupTries(t, func(timeout time.Duration, pidFile string) {
		stopped = filepath.Join(t.TempDir(), "stopped")
		o := testOptions(t)
		o.MaxGap = o.IdleFor
		o.Hook = []string{"sh", "-c", `sleep 120 & echo $! > "$1"; wait`, "hook", pidFile}
		o.HookTimeout = max(timeout, time.Second) // the option's least
		o.Stop = []string{"sh", "-c", `echo stop > "$1"`, "stop", stopped}
		w, err := New(o, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		w.Tick(t0, idleGPUs)
		start := time.Now()
		if d, _ := w.Tick(t0.Add(o.IdleFor), idleGPUs); d.Action != StartedStop {
			t.Fatalf("action %s; want started-stop", d.Action)
		}
		w.Wait()
		took = time.Since(start)
	})
	if took > 30*time.Second { // the hook alone would hang 120 s
		t.Errorf("hook and stop took %s; want the hook timeout and little more", took)
	}
	if b, err := os.ReadFile(stopped); err != nil || strings.TrimSpace(string(b)) != "stop" {
		t.Errorf("the stop command did not run after the hung hook: %q, %v", b, err)
	}
	child := readPID(t, pidFile)
	deadline := time.Now().Add(30 * time.Second)
	for !gone(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !gone(child) {
		syscall.Kill(child, syscall.SIGKILL)
		t.Errorf("the hook's child %d outlived hook_timeout", child)
	}
}
