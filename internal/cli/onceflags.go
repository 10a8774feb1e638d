package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuscout/gpuscout/internal/form"
)

// onceValue refuses a second value for a flag that holds one: pflag would
// silently keep the last (--gpu A100:8 ... --gpu H100:8 priced the H100s
// only). Lists (--provider a,b), repeatable inputs (--credits, --egress,
// --fx) and switches are not wrapped.
type onceValue struct {
	pflag.Value
	name  string
	first string
	set   bool
}

func (v *onceValue) Set(s string) error {
	if v.set {
		return fmt.Errorf("given twice (%q, then %q): give --%s once", v.first, s, v.name)
	}
	v.set, v.first = true, s
	return v.Value.Set(s)
}

// onceFlags wraps every single-value flag of cmd, its inherited ones
// included, before its arguments are parsed.
func onceFlags(cmd *cobra.Command) {
	cmd.InheritedFlags() // merges the parents' persistent flags into cmd.Flags()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if holdsOne(f) {
			f.Value = &onceValue{Value: f.Value, name: f.Name}
		}
		// A help text that says its default itself ("(default 5m; 0
		// allowed)") is not followed by pflag's "(default 5m)" as well.
		if strings.Contains(f.Usage, "(default") {
			f.DefValue = "" // pflag's zero: it prints no default
			if _, ok := f.Value.(pflag.SliceValue); ok {
				f.DefValue = "[]"
			}
		}
	})
}

// holdsOne reports whether a flag takes one value: not a list, not a
// repeatable input, not a switch or a counter.
func holdsOne(f *pflag.Flag) bool {
	if form.IsRepeatable(f) {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	switch f.Value.Type() {
	case "bool", "count":
		return false
	}
	return true
}
