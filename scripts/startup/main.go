// Command startup measures whole-process start-up: it runs a static Go
// hello-world and each command in rounds (one run of each per round, so that
// a machine shared with other work slows them alike) and prints each
// command's median wall time and its ratio to the hello-world's. Times are
// taken around fork, exec and wait in this process, without a shell or a
// timer process in between, so that a ratio compares the programs alone.
//
//	go run ./scripts/startup -n 50 -hello /tmp/hello -bin ./gpuscout version gpus 'offers --gpu A100:8'
//
// With -floor, a second reference binary runs in the same rounds: a
// hello-world linking the libraries of the design's one binary
// (scripts/startup/floor), the least any command of such a binary can take.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 50, "rounds, 1 to 100000")
	hello := flag.String("hello", "", "the hello-world binary")
	bin := flag.String("bin", "", "the binary whose commands are timed")
	floor := flag.String("floor", "", "optional: a hello-world linking the design's libraries (scripts/startup/floor)")
	flag.Parse()
	if *n < 1 || *n > 100000 || *hello == "" || *bin == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup -n ROUNDS -hello BIN [-floor BIN] -bin BIN 'COMMAND ARGS' ...")
		os.Exit(2)
	}
	cmds := [][]string{{*hello}}
	names := flag.Args()
	if *floor != "" {
		cmds = append(cmds, []string{*floor})
		names = append([]string{floorName}, names...)
	}
	for _, c := range flag.Args() {
		cmds = append(cmds, append([]string{*bin}, strings.Fields(c)...))
	}
	times, err := measure(cmds, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
	fmt.Print(report(names, times))
}

// floorName is the report's name of the -floor binary.
const floorName = "(libraries' floor)"

// measure runs each command once per round, after one warm-up run of each
// (the page cache), and returns each command's wall times.
func measure(cmds [][]string, rounds int) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(cmds))
	for r := -1; r < rounds; r++ {
		for i, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("%s: %v", strings.Join(c, " "), err)
			}
			if r >= 0 {
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	return times, nil
}

// median is the middle of d (the upper middle of an even count).
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// report is one line for the hello-world and one per command: the median
// and its ratio to the hello-world's median. times[0] is the hello-world's.
func report(names []string, times [][]time.Duration) string {
	var b strings.Builder
	base := median(times[0])
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Fprintf(&b, "hello-world          %6.3f ms\n", ms(base))
	for i, name := range names {
		m := median(times[i+1])
		fmt.Fprintf(&b, "%-20s %6.3f ms  %.1f× hello-world\n", name, ms(m), float64(m)/float64(base))
	}
	return b.String()
}
