package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// startExec runs x for a in the background (at most four at a time).
func (d *Dispatcher) startExec(ctx context.Context, x Exec, a Alert) {
	d.execWG.Add(1)
	go func() {
		defer d.execWG.Done()
		d.execSem <- struct{}{}
		defer func() { <-d.execSem }()
		err := runExec(context.WithoutCancel(ctx), x, a)
		d.count(func(s *Stats) {
			s.ExecRuns++
			if err != nil {
				s.ExecFailures++
			}
		})
		if err != nil {
			d.o.Log.Error("notify exec failed", "exec", x.Name, "alert", a.Name(), "status", a.Status(), "err", err)
		} else {
			d.o.Log.Info("notify exec ran", "exec", x.Name, "alert", a.Name(), "status", a.Status())
		}
	}()
}

// errExecTimeout says an action ran past its timeout and was killed.
var errExecTimeout = errors.New("ran past its timeout: its process group was killed")

// runExec runs x's argv directly (no shell, so label values are never
// interpreted), in a process group of its own that is killed at the timeout.
func runExec(ctx context.Context, x Exec, a Alert) error {
	ctx, cancel := context.WithTimeout(ctx, x.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, x.Argv[0], x.Argv[1:]...)
	cmd.Env = append(os.Environ(), execEnv(a)...)
	js, _ := json.Marshal(a)
	cmd.Stdin = bytes.NewReader(js)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return errExecTimeout
	}
	if err != nil && stderr.Len() > 0 {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return err
}

// tailBuffer keeps the last 2 KiB written to it (an action's stderr, for
// the log).
type tailBuffer struct{ bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.Buffer.Write(p)
	if over := t.Len() - 2048; over > 0 {
		t.Next(over)
	}
	return n, nil
}
