package autostop

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCountSSHFixtures(t *testing.T) {
	tests := []struct {
		name    string
		root    string
		ports   []int
		want    int
		wantErr string
	}{
		// testdata/SOURCE.md: 2 established IPv4 and 1 IPv6 session into port 2222.
		{"ipv4 and ipv6 sessions", "testdata/proc", []int{2222}, 3, ""},
		{"two ports, one in use", "testdata/proc", []int{22, 2222}, 3, ""},
		{"no session on 22", "testdata/proc", []int{22}, 0, ""},
		// A client socket's local port (0x9158) is established too, but that
		// is the client end of a session; counting it here only shows the
		// parser reads the local port, not the remote one.
		{"client port is a local port", "testdata/proc", []int{0x9158}, 1, ""},
		{"no tcp6 (kernel without IPv6)", "testdata/proc-nov6", []int{2222}, 2, ""},
		{"malformed line", "testdata/proc-bad", []int{22}, 0, "local address \"0100007F08AE\" has no port"},
		{"no procfs", "testdata/nonexistent", []int{22}, 0, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CountSSH(tt.root, tt.ports)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CountSSH(%s, %v) error = %v; want one containing %q", tt.root, tt.ports, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CountSSH(%s, %v) = %d, %v; want %d, nil", tt.root, tt.ports, got, err, tt.want)
			}
		})
	}
}

func TestCountSSHBadFiles(t *testing.T) {
	tests := []struct {
		name, tcp, wantErr string
	}{
		{"empty", "", "empty file"},
		{"not a tcp table", "Inter-|   Receive\n face |bytes\n", "not a /proc/net/tcp table"},
		{"short line", "  sl  local_address rem_address   st\n   0: 0100007F:0016\n", "want sl, local_address"},
		{"bad port", "  sl  local_address rem_address   st\n   0: 0100007F:XYZ1 0100007F:9158 01\n", "local port \"XYZ1\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "net"), 0o755)
			os.WriteFile(filepath.Join(root, "net", "tcp"), []byte(tt.tcp), 0o644)
			n, err := CountSSH(root, []int{22})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("CountSSH = %d, %v; want an error containing %q", n, err, tt.wantErr)
			}
		})
	}
	t.Run("unreadable tcp6", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "net", "tcp6"), 0o755) // a directory: read fails, not ENOENT
		b, _ := os.ReadFile("testdata/proc/net/tcp")
		os.WriteFile(filepath.Join(root, "net", "tcp"), b, 0o644)
		if n, err := CountSSH(root, []int{2222}); err == nil {
			t.Errorf("CountSSH with tcp6 a directory = %d, nil; want an error", n)
		}
	})
}

// TestCountSSHLive counts a real loopback session in this machine's /proc.
func TestCountSSHLive(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp here")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if n, err := countSettled(port, 0); err != nil || n != 0 {
		t.Fatalf("before connecting: CountSSH(/proc, %d) = %d, %v; want 0, nil", port, n, err)
	}
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := countSettled(port, 1); err != nil || n != 1 {
		t.Errorf("with one session: CountSSH(/proc, %d) = %d, %v; want 1, nil", port, n, err)
	}
}

// countSettled is CountSSH of the machine's own /proc on port, read up to
// five times 50 ms apart until it is want: the count covers every process,
// and another test running beside this one may connect to the port for a
// moment (a fresh clone's test run found 2 for 1 once).
func countSettled(port, want int) (int, error) {
	var n int
	var err error
	for range 5 {
		if n, err = CountSSH("/proc", []int{port}); err != nil || n == want {
			return n, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return n, err
}
