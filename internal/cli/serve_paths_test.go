package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad paths and addresses of serve and token exit 2, and reading tokens
// never creates a store.
func TestServeTokenPathsExit2(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", ":99999", "--db", filepath.Join(dir, "s.db")}, "want HOST:PORT with a port from 0 to 65535"},
		{[]string{"token", "list", "--db", dir}, "is a folder; want a SQLite file"},
		{[]string{"token", "list", "--db", missing}, "no store there"},
		{[]string{"token", "revoke", "x", "--db", missing}, "no store there"},
	} {
		_, errb, code := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errb, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("token list created the store it was asked to read")
	}
}
