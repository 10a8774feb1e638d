package cli

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// flagMention is a --flag in prose: after a space, an opening bracket or a
// line start, never inside a word (a URL, "pay-as-you-go").
var flagMention = regexp.MustCompile(`(?:^|[\s(\[,;])--([A-Za-z][A-Za-z0-9-]*)`)

// quotedGpuscout is a gpuscout command line quoted in help text.
var quotedGpuscout = regexp.MustCompile(`'(gpuscout [^']*)'`)

// otherProgram is a command line of another program (aliyun, aws, tccli),
// which help text writes in backquotes: its flags are that program's.
var otherProgram = regexp.MustCompile("`[^`]*`")

// TestRefreshHelpNamesRealFlags: every --flag that 'catalog refresh --help'
// names (its text, the list of formats, its examples and its flag list) is
// a flag of catalog refresh; one inside a quoted 'gpuscout CMD ...' line is
// a flag of CMD; one in a backquoted line of another program is that
// program's and is not checked.
func TestRefreshHelpNamesRealFlags(t *testing.T) {
	out, errOut, code := run(t, "catalog", "refresh", "--help")
	if code != 0 {
		t.Fatalf("catalog refresh --help: exit %d: %s", code, errOut)
	}
	root := newRoot(&env{stdout: io.Discard, stderr: io.Discard, now: clock})
	refresh, _, err := root.Find([]string{"catalog", "refresh"})
	if err != nil || refresh.Name() != "refresh" {
		t.Fatalf("no catalog refresh command: %v", err)
	}
	has := func(c *cobra.Command, name string) bool {
		c.InitDefaultHelpFlag()
		return c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil
	}
	var checked []string
	check := func(c *cobra.Command, text, where string) {
		for _, m := range flagMention.FindAllStringSubmatch(text, -1) {
			checked = append(checked, m[1])
			if !has(c, m[1]) {
				t.Errorf("%s names --%s, which '%s' does not have", where, m[1], c.CommandPath())
			}
		}
	}
	// A gpuscout command line, quoted or backquoted: the flags of its command.
	gpuscoutLine := func(line string) {
		words := strings.Fields(strings.TrimPrefix(line, "gpuscout "))
		i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "-") })
		if i < 0 {
			i = len(words)
		}
		c, _, err := root.Find(words[:i])
		if err != nil || c == root {
			t.Errorf("the help quotes %q, not a gpuscout command", line)
			return
		}
		check(c, " "+strings.Join(words[i:], " "), "the quoted line '"+line+"'")
	}
	text := otherProgram.ReplaceAllStringFunc(out, func(span string) string {
		if line := strings.Trim(span, "`"); strings.HasPrefix(line, "gpuscout ") {
			gpuscoutLine(line)
		}
		return " "
	})
	text = quotedGpuscout.ReplaceAllStringFunc(text, func(span string) string {
		gpuscoutLine(strings.Trim(span, "'"))
		return " "
	})
	check(refresh, text, "catalog refresh --help")
	for _, want := range []string{"from-file", "format", "as-of", "provider", "region", "dry-run"} {
		if !slices.Contains(checked, want) {
			t.Errorf("the help never names --%s (checked: %v)", want, checked)
		}
	}
}
