package autostop

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// maxOutput is how much of a command's output is kept for the log.
const maxOutput = 4 << 10

// ErrTimeout says a command ran past its timeout and was killed with its
// process group.
var ErrTimeout = errors.New("timed out, killed with its process group")

// Result is how one command went.
type Result struct {
	Argv     []string
	Took     time.Duration
	Output   string // the last maxOutput bytes of stdout and stderr together
	Err      error  // nil, ErrTimeout (wrapped) or the exit error
	TimedOut bool
}

// RunCommand runs argv (no shell: label values or config text are never
// interpreted) with a timeout. At the timeout the command's whole process
// group is killed, and waiting for its pipes is bounded too, so a hook
// that hangs or leaves a child holding stdout cannot hold the agent.
func RunCommand(ctx context.Context, argv []string, timeout time.Duration) Result {
	start := time.Now()
	res := Result{Argv: argv}
	if len(argv) == 0 || argv[0] == "" {
		res.Err = errors.New("empty command")
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	out := &tailBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	killGroup(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res.Took = time.Since(start)
	res.Output = strings.TrimSpace(string(out.b))
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut = true
		res.Err = fmt.Errorf("%s: did not finish within %s: %w", argv[0], timeout, ErrTimeout)
	case err != nil:
		res.Err = fmt.Errorf("%s: %w", argv[0], err)
	}
	return res
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}
