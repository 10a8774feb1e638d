package deploytest

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/cli"
)

// fleetDir is deploy/fleet from this package's directory.
var fleetDir = filepath.Join("..", "..", "..", "deploy", "fleet")

// checkCommand parses args (a gpuscout command line, without the program
// name) with the real command tree: it appends --help, which cobra honours
// only after every flag parsed, so an unknown command or flag, or a flag
// without its value, fails with exit 2.
func checkCommand(t *testing.T, where string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: an empty gpuscout command line", where)
		return
	}
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), append(append([]string{}, args...), "--help"), &stdout, &stderr)
	if code == cli.ExitOK {
		return
	}
	t.Errorf("%s: gpuscout %s: exit %d; want 0 (every command and flag real)\n%s", where, strings.Join(args, " "), code, stderr.String())
}

// shellVar matches $NAME and ${NAME}; kubeVar matches Kubernetes' $(NAME).
var (
	shellVar = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)
	kubeVar  = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
)

// shellWords splits one shell command line into words: blanks separate words,
// single and double quotes group, a backslash escapes the next character.
// It is enough for the command lines of the fleet files; it does not expand.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '\'':
			cur.WriteRune(r)
		case r == '\\' && i+1 < len(runes):
			i++
			cur.WriteRune(runes[i])
			inWord = true
		case quote == 0 && (r == '"' || r == '\''):
			quote, inWord = r, true
		case quote == 0 && (r == ' ' || r == '\t'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errUnclosedQuote
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnclosedQuote = errors.New("unclosed quote")

// gpuscoutArgs returns the arguments of a gpuscout command in a shell line
// (its first word is gpuscout or a path ending in /gpuscout), and whether the
// line is one.
func gpuscoutArgs(line string) ([]string, bool, error) {
	words, err := shellWords(line)
	if err != nil || len(words) == 0 {
		return nil, false, err
	}
	if words[0] != "gpuscout" && !strings.HasSuffix(words[0], "/gpuscout") {
		return nil, false, nil
	}
	return words[1:], true, nil
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`a b  c`, []string{"a", "b", "c"}},
		{`x --upload "$URL" --out "r-$N.json"`, []string{"x", "--upload", "$URL", "--out", "r-$N.json"}},
		{`a 'b c' d\ e ""`, []string{"a", "b c", "d e", ""}},
	}
	for _, tt := range tests {
		got, err := shellWords(tt.line)
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	if _, err := shellWords(`a "b`); err == nil {
		t.Error(`shellWords("a \"b") = nil error; want unclosed quote`)
	}
}

// TestCheckCommandCatchesUnknownFlags makes sure the check itself fails on a
// flag gpuscout does not have (a check that passes everything proves nothing).
func TestCheckCommandCatchesUnknownFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli.Main(context.Background(), []string{"offers", "--no-such-flag", "x", "--help"}, &stdout, &stderr); code != cli.ExitUsage || !strings.Contains(stderr.String(), "unknown flag") {
		t.Errorf("offers --no-such-flag --help: exit %d, stderr %q; want 2 and unknown flag", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := cli.Main(context.Background(), []string{"bench", "--out", "/out/report.json", "--help"}, &stdout, &stderr); code != cli.ExitOK {
		t.Errorf("bench --out FILE --help: exit %d, stderr %q; want 0", code, stderr.String())
	}
}
