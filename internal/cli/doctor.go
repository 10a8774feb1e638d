package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuscout/gpuscout/internal/doctor"
	"github.com/gpuscout/gpuscout/internal/render"
)

// doctorEnv is the machine doctor examines; tests put a doctor.Fake here.
var doctorEnv = func() doctor.Env { return doctor.System{} }

// doctorWidth is where the table's detail and fix text wrap.
const doctorWidth = 100

func newDoctorCmd(e *env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the GPU node's driver, CUDA libraries, Python and PyTorch, with fixes",
		Long: `doctor checks this machine's GPU software stack: the NVIDIA driver and the CUDA
version it supports, each GPU's modes (MIG, virtualization, ECC, persistence),
the CUDA libraries (libcuda, cudart, cuBLAS, cuDNN, NCCL) and their versions,
Python, an active or forgotten conda/venv/pyenv, and the PyTorch build, against
NVIDIA's published minimum drivers.

It then opens each GPU the way bench does and reports what the driver and NVML
say: whether the driver starts (cuInit; 802 on an HGX node means the fabric
manager is not running), whether each GPU opens, compute modes, other programs
computing on the GPUs, active slowdowns (clock-event reasons), remapped memory
rows, whether cuBLAS and NCCL are built for a CUDA the driver supports, and the
Xid errors in the kernel log (dmesg; run it with sudo where the log is
restricted). Each check is ok, warn, fail or missing, with what to do. A
machine without a GPU is not an error.

Exit status: 0 when no check fails, 1 when one does, 2 for bad flags.`,
		Example: "  gpuscout doctor\n  gpuscout doctor -o json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "table" && output != "json" {
				return usagef("--output %q: doctor writes table or json", output)
			}
			r := doctor.RunProgress(cmd.Context(), doctorEnv(), doctorProgress(e))
			if p := doctorProgress(e); p != nil {
				p("")
			}
			var err error
			if output == "json" {
				err = render.JSON(e.stdout, r)
			} else {
				err = writeDoctorTable(e, r)
			}
			if err != nil {
				return err
			}
			if n := doctorCount(r, doctor.StatusFail); n > 0 {
				return fmt.Errorf("doctor: %s failed", doctorPlural(n, "check", "checks"))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table|json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// doctorProgress shows the step doctor is on, on one line of stderr, only
// when stderr is a terminal; the line is cleared when the report is written.
func doctorProgress(e *env) func(string) {
	if !progressTTY(e.stderr) {
		return nil
	}
	f := e.stderr
	return func(step string) {
		if step == "" {
			fmt.Fprint(f, "\r\x1b[K")
			return
		}
		fmt.Fprintf(f, "\r\x1b[Kgpuscout doctor: checking %s…", step)
	}
}

func doctorCount(r doctor.Report, s doctor.Status) int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

func doctorPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// doctorStatusColor is the ANSI colour of each status on a terminal.
var doctorStatusColor = map[doctor.Status]string{
	doctor.StatusOK: "32", doctor.StatusWarn: "33", doctor.StatusFail: "31", doctor.StatusMissing: "2",
}

// writeDoctorTable writes one row per check (name, status, detail) with the
// fix on the lines under it, both wrapped under the detail column, and a
// summary line.
func writeDoctorTable(e *env, r doctor.Report) error {
	nameW := len("CHECK")
	for _, c := range r.Checks {
		nameW = max(nameW, len(c.Name))
	}
	const statusW = len("missing")
	indent := strings.Repeat(" ", nameW+2+statusW+2)
	textW := max(doctorWidth-len(indent), 30)
	var b strings.Builder
	head := fmt.Sprintf("%-*s  %-*s  %s", nameW, "CHECK", statusW, "STATUS", "DETAIL")
	if e.color {
		head = "\x1b[1m" + head + "\x1b[0m"
	}
	b.WriteString(head + "\n")
	for _, c := range r.Checks {
		status := fmt.Sprintf("%-*s", statusW, c.Status)
		if e.color {
			status = "\x1b[" + doctorStatusColor[c.Status] + "m" + status + "\x1b[0m"
		}
		lines := doctorWrap(c.Detail, textW)
		fmt.Fprintf(&b, "%-*s  %s  %s\n", nameW, c.Name, status, lines[0])
		for _, l := range lines[1:] {
			b.WriteString(indent + l + "\n")
		}
		if c.Fix != "" && c.Status != doctor.StatusOK {
			for i, l := range doctorWrap("fix: "+c.Fix, textW) {
				if i > 0 {
					l = "     " + l
				}
				b.WriteString(indent + l + "\n")
			}
		}
	}
	var counts []string
	for _, s := range []doctor.Status{doctor.StatusOK, doctor.StatusWarn, doctor.StatusFail, doctor.StatusMissing} {
		if n := doctorCount(r, s); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, s))
		}
	}
	fmt.Fprintf(&b, "\n%s: %s.", doctorPlural(len(r.Checks), "check", "checks"), strings.Join(counts, ", "))
	if len(r.Checks) > 0 && r.Checks[0].Name == "driver" && r.Checks[0].Status == doctor.StatusMissing {
		b.WriteString(" No NVIDIA GPU on this machine: the GPU checks were skipped, which is not an error.")
	}
	b.WriteString("\n")
	_, err := fmt.Fprint(e.stdout, b.String())
	return err
}

// doctorWrap breaks text into lines of at most width bytes on spaces; a word
// longer than a line (a path) stands alone on its line. It returns at least
// one line.
func doctorWrap(s string, width int) []string {
	var lines []string
	line := ""
	for w := range strings.FieldsSeq(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}
