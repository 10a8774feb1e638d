package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/bench"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
)

// NCCL's choice of algorithm and protocol is read from its TUNING log,
// which it sets up once a process and writes as each all-reduce is
// queued: host time that would inflate the small-message latency if it
// were on where the all-reduces are timed. So `gpuscout bench` learns the
// choice from a probe process of its own, `gpuscout bench nccl-choice`
// (hidden), started with the same environment (CUDA_VISIBLE_DEVICES
// included) before its timed communicator is opened, and times with NCCL's
// log as the user set it.

// ncclChoiceTimeout bounds the probe process: creating NCCL's
// communicators takes seconds on eight GPUs.
var ncclChoiceTimeout = 3 * time.Minute

// ncclChoiceProbe is the bench.Runner's NCCLChoice: it runs this program's
// own `bench nccl-choice`.
var ncclChoiceProbe bench.NCCLChoiceProbe = execNCCLChoice

// execNCCLChoice runs `<this executable> bench nccl-choice --sizes …
// --devices …` with this process's environment, under ncclChoiceTimeout,
// and reads what it printed.
func execNCCLChoice(ctx context.Context, devices []int, sizes []int64) (map[int64]gpu.Choice, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to run bench nccl-choice: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, ncclChoiceTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, ncclChoiceArgs(devices, sizes)...)
	cmd.Env = os.Environ() // the same environment: NCCL_*, CUDA_VISIBLE_DEVICES
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("gpuscout bench nccl-choice did not finish within %s", ncclChoiceTimeout)
	}
	if err != nil {
		msg := lastLine(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("gpuscout bench nccl-choice: %v", err)
		}
		return nil, fmt.Errorf("gpuscout bench nccl-choice: %v: %s", err, msg)
	}
	choices, err := bench.ReadNCCLChoices(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gpuscout bench nccl-choice: %w", err)
	}
	return choices, nil
}

// ncclChoiceArgs are the probe's arguments.
func ncclChoiceArgs(devices []int, sizes []int64) []string {
	ds, ss := make([]string, len(devices)), make([]string, len(sizes))
	for i, d := range devices {
		ds[i] = strconv.Itoa(d)
	}
	for i, s := range sizes {
		ss[i] = strconv.FormatInt(s, 10)
	}
	return []string{"bench", "nccl-choice", "--sizes", strings.Join(ss, ","), "--devices", strings.Join(ds, ",")}
}

// lastLine is the last non-empty line of s, at most 400 bytes of it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 400 {
		l = l[:400] + "…"
	}
	return l
}

// newBenchNCCLChoiceCmd is the probe process: it opens the GPUs and an NCCL
// communicator over those of --devices with NCCL's TUNING log on, runs one
// untimed all-reduce per size, prints what NCCL chose as one line of JSON
// (bench.WriteNCCLChoices) and exits.
func newBenchNCCLChoiceCmd() *cobra.Command {
	var sizes []int64
	var devices []int
	cmd := &cobra.Command{
		Use:    "nccl-choice",
		Short:  "Print which algorithm and protocol NCCL chooses per all-reduce size (bench runs it in a process of its own)",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	fl := cmd.Flags()
	fl.Int64SliceVar(&sizes, "sizes", nil, "all-reduce sizes in bytes (fp32 sums)")
	fl.IntSliceVar(&devices, "devices", nil, "the GPUs, by CUDA index (default: every GPU that opened)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(sizes) == 0 {
			return usagef("--sizes is empty")
		}
		for _, s := range sizes {
			if s < 4 || s%4 != 0 {
				return usagef("--sizes: %d is not a positive multiple of 4 bytes", s)
			}
		}
		all, err := openGPUs()
		if err != nil {
			return err
		}
		defer func() {
			for _, d := range all {
				_ = d.Close()
			}
		}()
		devs, err := pickGPUs(all, devices)
		if err != nil {
			return err
		}
		choices, err := cuda.NCCLChoices(devs, sizes)
		if err != nil {
			return err
		}
		return bench.WriteNCCLChoices(cmd.OutOrStdout(), choices)
	}
	return cmd
}

// pickGPUs is the opened GPUs of indices (every one that opened when none
// is given), in that order.
func pickGPUs(all []gpu.Device, indices []int) ([]gpu.Device, error) {
	var out []gpu.Device
	if len(indices) == 0 {
		for _, d := range all {
			if gpu.OpenError(d) == nil {
				out = append(out, d)
			}
		}
		return out, nil
	}
	for _, i := range indices {
		var found gpu.Device
		for _, d := range all {
			if d.Info().Index == i {
				found = d
			}
		}
		if found == nil {
			return nil, fmt.Errorf("no GPU %d", i)
		}
		if err := gpu.OpenError(found); err != nil {
			return nil, fmt.Errorf("GPU %d: %w", i, err)
		}
		out = append(out, found)
	}
	return out, nil
}
