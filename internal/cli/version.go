package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at link time (-ldflags "-X github.com/gpuscout/gpuscout/internal/cli.Version=v0.1.0").
var Version = "dev"

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			commit, dirty := "unknown", ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					switch s.Key {
					case "vcs.revision":
						commit = s.Value
					case "vcs.modified":
						if s.Value == "true" {
							dirty = " (modified)"
						}
					}
				}
			}
			_, err := fmt.Fprintf(e.stdout, "gpuscout %s\ncommit %s%s\n%s %s/%s\n", Version, commit, dirty, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// noArgs rejects positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}
