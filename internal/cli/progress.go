package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progressTTY reports whether progress goes to w (stderr): only when it is a
// terminal, so pipes and logs get the results alone. The one place every
// command (bench, doctor, spot, catalog refresh) asks; tests replace it.
var progressTTY = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar draws "what done/total [=====     ]" on one line of w once the
// work has taken half a second, at most ten times a second, and ends the
// line when done reaches total; with total 0 (not known yet) it counts.
func progressBar(w io.Writer, start time.Time) func(done, total int, what string) {
	var last time.Time
	shown := false
	return func(done, total int, what string) {
		now := time.Now()
		if (total == 0 || done < total) && (now.Sub(start) < 500*time.Millisecond || now.Sub(last) < 100*time.Millisecond) {
			return
		}
		if done == total && !shown {
			return
		}
		last, shown = now, true
		if r := []rune(what); len(r) > 60 {
			what = string(r[:57]) + "..."
		}
		if total <= 0 {
			fmt.Fprintf(w, "\r\033[K%s: %d", what, done)
			return
		}
		const width = 30
		n := min(width, done*width/total)
		fmt.Fprintf(w, "\r\033[K%s %d/%d [%s%s]", what, done, total, strings.Repeat("=", n), strings.Repeat(" ", width-n))
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}
