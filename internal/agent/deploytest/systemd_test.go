package deploytest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

const deployDir = "../../../deploy"

// unit is a systemd unit file: section -> key -> values (a key may repeat).
type unit map[string]map[string][]string

// parseUnit reads systemd's INI dialect: [Section] headers, Key=Value
// lines, comments starting with # or ;, and backslash continuations.
func parseUnit(path string) (unit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	u := unit{}
	section, n := "", 0
	sc := bufio.NewScanner(f)
	var cont string
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if cont != "" {
			line, cont = cont+" "+line, ""
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont = strings.TrimSuffix(line, `\`)
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("%s:%d: section header %q has no ]", path, n, line)
			}
			section = line[1 : len(line)-1]
			if u[section] != nil {
				return nil, fmt.Errorf("%s:%d: section [%s] twice", path, n, section)
			}
			u[section] = map[string][]string{}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section == "" {
			return nil, fmt.Errorf("%s:%d: %q is not Key=Value inside a section", path, n, line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		u[section][k] = append(u[section][k], v)
	}
	return u, sc.Err()
}

// one returns the single value of section.key, failing if it is missing or repeated.
func (u unit) one(t *testing.T, section, key string) string {
	t.Helper()
	v := u[section][key]
	if len(v) != 1 {
		t.Errorf("[%s] %s = %q; want exactly one value", section, key, v)
		return ""
	}
	return v[0]
}

func TestSystemdUnit(t *testing.T) {
	file := filepath.Join(deployDir, "systemd", "gpuscout-agent.service")
	u, err := parseUnit(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Unit", "Service", "Install"} {
		if u[s] == nil {
			t.Errorf("no [%s] section", s)
		}
	}
	if len(u) != 3 {
		t.Errorf("sections %v; want Unit, Service, Install", u)
	}
	// ExecStart runs `gpuscout agent --config FILE`, FILE in the unit's
	// configuration directory.
	argv := strings.Fields(u.one(t, "Service", "ExecStart"))
	if len(argv) != 4 || path.Base(argv[0]) != "gpuscout" || !path.IsAbs(argv[0]) || argv[1] != "agent" || argv[2] != "--config" {
		t.Fatalf("ExecStart %q; want /path/to/gpuscout agent --config FILE", argv)
	}
	if dir := "/etc/" + u.one(t, "Service", "ConfigurationDirectory"); path.Dir(argv[3]) != dir {
		t.Errorf("ExecStart's config %s is not in the ConfigurationDirectory %s", argv[3], dir)
	}
	// The state directory systemd makes is the agent's default state_dir.
	if dir := "/var/lib/" + u.one(t, "Service", "StateDirectory"); dir != agentconfig.DefaultStateDir {
		t.Errorf("StateDirectory gives %s; the agent's default state_dir is %s", dir, agentconfig.DefaultStateDir)
	}
	checks := []struct{ section, key, want string }{
		{"Unit", "Description", ""},
		{"Service", "Type", "simple"},
		{"Service", "Restart", "on-failure"},
		// Root, for autostop's `shutdown -h now`; not a DynamicUser.
		{"Service", "User", "root"},
		// A bad config exits 2: no restart loop on it.
		{"Service", "RestartPreventExitStatus", "2"},
		{"Service", "NoNewPrivileges", "yes"},
		{"Service", "ProtectSystem", "strict"},
		{"Install", "WantedBy", "multi-user.target"},
	}
	for _, c := range checks {
		if got := u.one(t, c.section, c.key); c.want != "" && got != c.want || got == "" {
			t.Errorf("[%s] %s = %q; want %q", c.section, c.key, got, c.want)
		}
	}
	// Settings that would break the agent: /dev/nvidia* hidden, boot_id
	// hidden, shutdown impossible.
	for _, bad := range []struct{ key, value string }{{"PrivateDevices", "yes"}, {"ProcSubset", "pid"}, {"DynamicUser", "yes"}, {"PrivateNetwork", "yes"}} {
		if vals := u["Service"][bad.key]; len(vals) > 0 && vals[0] == bad.value {
			t.Errorf("[Service] %s=%s would stop the agent from working", bad.key, bad.value)
		}
	}
}

// TestSystemdVerify runs `systemd-analyze verify` on the unit (with
// ExecStart pointed at an executable that exists here), when it is
// installed: unknown keys and bad values are errors.
func TestSystemdVerify(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(filepath.Join(deployDir, "systemd", "gpuscout-agent.service"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	unitPath := filepath.Join(dir, "gpuscout-agent.service")
	text := strings.Replace(string(b), "ExecStart=/usr/local/bin/gpuscout ", "ExecStart="+self+" ", 1)
	if err := os.WriteFile(unitPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", unitPath).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
