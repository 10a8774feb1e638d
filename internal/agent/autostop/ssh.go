package autostop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpEstablished is the kernel's TCP_ESTABLISHED state in /proc/net/tcp.
const tcpEstablished = "01"

// maxTCPLines bounds how much of a /proc/net/tcp file is read: a host with
// more sockets than this is busy, and reading stops with an error (active).
const maxTCPLines = 1 << 20

// CountSSH counts the established TCP connections whose local port is one
// of ports, from procRoot/net/tcp and procRoot/net/tcp6: the SSH sessions
// into this machine (an outgoing ssh has the port on the remote side and
// is not counted). The network namespace is the reader's: in a container
// the agent needs the host's network (hostNetwork) for this to see sshd.
//
// net/tcp must be readable; net/tcp6 may be absent (a kernel without IPv6
// has no IPv6 connections). Any other failure is an error, which the
// Watcher counts as an active signal.
func CountSSH(procRoot string, ports []int) (int, error) {
	want := make(map[uint16]bool, len(ports))
	for _, p := range ports {
		want[uint16(p)] = true
	}
	n4, err := countFile(filepath.Join(procRoot, "net", "tcp"), want)
	if err != nil {
		return 0, err
	}
	n6, err := countFile(filepath.Join(procRoot, "net", "tcp6"), want)
	if errors.Is(err, fs.ErrNotExist) {
		return n4, nil
	}
	if err != nil {
		return 0, err
	}
	return n4 + n6, nil
}

func countFile(path string, ports map[uint16]bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := countTCP(f, ports)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// countTCP reads one /proc/net/tcp{,6} table: a header line, then
// "sl: local_address rem_address st ..." with addresses as HEXIP:HEXPORT.
func countTCP(r io.Reader, ports map[uint16]bool) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 4096)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, err
		}
		return 0, errors.New("empty file, want the header line")
	}
	if h := strings.Fields(sc.Text()); len(h) < 4 || h[1] != "local_address" || h[3] != "st" {
		return 0, fmt.Errorf("header %q: not a /proc/net/tcp table", sc.Text())
	}
	n, line := 0, 1
	for sc.Scan() {
		line++
		if line > maxTCPLines {
			return 0, fmt.Errorf("more than %d lines", maxTCPLines)
		}
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 4 {
			return 0, fmt.Errorf("line %d %q: want sl, local_address, rem_address, st", line, sc.Text())
		}
		i := strings.LastIndexByte(f[1], ':')
		if i < 0 {
			return 0, fmt.Errorf("line %d: local address %q has no port", line, f[1])
		}
		port, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if err != nil {
			return 0, fmt.Errorf("line %d: local port %q: %v", line, f[1][i+1:], err)
		}
		if f[3] == tcpEstablished && ports[uint16(port)] {
			n++
		}
	}
	return n, sc.Err()
}
