// Package cli is gpuscout's command line: one file per subcommand, the
// shared flags (output format, currency, price files), and the mapping of
// errors to exit codes (0 ok, 1 runtime failure, 2 usage error).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/render"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// usageError marks bad input: the user can fix it by changing the command.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err}
}

// env is what commands write to and know about their terminal.
type env struct {
	stdout, stderr io.Writer
	tty            bool // stdout is a terminal
	color          bool
	now            func() time.Time
}

// clock is the time commands see (the age of a dated rate, say); tests fix it.
var clock = time.Now

// Main runs gpuscout with args and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, now: clock}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.tty = true
		_, noColor := os.LookupEnv("NO_COLOR")
		e.color = !noColor && os.Getenv("TERM") != "dumb"
	}
	root := newRootFor(e, args)
	if cmd, _, err := root.Find(args); err == nil {
		onceFlags(cmd)
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitFailure
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		code = ExitUsage
	}
	fmt.Fprintf(stderr, "gpuscout: %v\n", err)
	if code == ExitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// isCobraUsage recognises cobra's own argument errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// bareRoot is the root command without its subcommands.
func bareRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpuscout",
		Short: "Choose, price, verify and run GPU cloud capacity",
		Long: `gpuscout helps machine-learning teams choose, price, verify and run GPU cloud
capacity across AWS, Azure, GCP, Alibaba Cloud, Tencent Cloud and the GPU clouds.
Every price carries its source and date; a price nobody can source is shown as unknown.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return asUsage(suggestFlag(cmd, err)) })
	return root
}

// newRoot is the whole command tree.
func newRoot(e *env) *cobra.Command {
	root := bareRoot(e)
	for _, c := range commands {
		root.AddCommand(c.build(e))
	}
	strictCompletion(root)
	return root
}

// commands are gpuscout's commands, in help order: one a line, so that
// adding one never conflicts with another.
var commands = []struct {
	name  string
	build func(*env) *cobra.Command
}{
	{"advise", newAdviseCmd},
	{"gpus", newGPUsCmd},
	{"models", newModelsCmd},
	{"offers", newOffersCmd},
	{"cost", newCostCmd},
	{"spot", newSpotCmd},
	{"catalog", newCatalogCmd},
	{"version", newVersionCmd},
	{"env", newEnvCmd},
	{"bench", newBenchCmd},
	{"doctor", newDoctorCmd},
	{"rules", newRulesCmd},
	{"agent", newAgentCmd},
	{"serve", newServeCmd},
	{"token", newTokenCmd},
}

// newRootFor builds only the command args call, when the first argument
// names one (a call builds one command's flags, not all fifteen's); the
// whole tree otherwise (help, completion, a mistyped name that needs the
// suggestions).
func newRootFor(e *env, args []string) *cobra.Command {
	if len(args) == 0 {
		return newRoot(e)
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		root := bareRoot(e)
		root.AddCommand(c.build(e))
		return root
	}
	return newRoot(e)
}

// strictCompletion makes `gpuscout completion SHELL` refuse a shell cobra
// cannot write (tcsh, say) with exit 2, instead of printing help and exit 0.
func strictCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, s := range c.Commands() {
			shells = append(shells, s.Name())
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("completion %q: no completion for that shell; want one of %s", args[0], strings.Join(shells, ", "))
			}
			return cmd.Help()
		}
	}
}

// outputFlag registers -o and returns a getter that validates it.
func outputFlag(cmd *cobra.Command) func() (render.Format, error) {
	var s string
	cmd.Flags().StringVarP(&s, "output", "o", "table", "output format: "+strings.Join(render.Formats, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(render.Formats, cobra.ShellCompDirectiveNoFileComp))
	return func() (render.Format, error) {
		f, err := render.ParseFormat(s)
		return f, asUsage(err)
	}
}

// write renders a table or, for JSON, the given value.
func (e *env) write(f render.Format, t *render.Table, jsonValue any) error {
	if f == render.FormatJSON {
		return render.JSON(e.stdout, jsonValue)
	}
	return t.Write(e.stdout, f, render.Options{Color: e.color})
}

// suggestFlag adds the nearest flag names to an unknown-flag error
// ("unknown flag: --fo" → "did you mean --for?").
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	near := catalog.Closest(name, names, 3)
	if len(near) == 0 {
		return err
	}
	for i := range near {
		near[i] = "--" + near[i]
	}
	return fmt.Errorf("%v; did you mean %s?", err, strings.Join(near, ", "))
}

// atMostOne accepts no argument or one (the NAME of `gpus NAME`), and says
// what the command takes when given more.
// exactlyOne asks for one positional argument, naming what it is.
func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("%s takes one argument, %s; got %d", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

func atMostOne(command, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usagef("%s takes at most one %s, got %d", command, what, len(args))
		}
		return nil
	}
}
