package deploytest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/server/client"
)

// skyTask is the part of a SkyPilot task YAML the test checks.
type skyTask struct {
	Name      string `yaml:"name"`
	NumNodes  int    `yaml:"num_nodes"`
	Resources struct {
		Accelerators string `yaml:"accelerators"`
	} `yaml:"resources"`
	Envs    map[string]*string `yaml:"envs"`
	Secrets map[string]*string `yaml:"secrets"`
	Setup   string             `yaml:"setup"`
	Run     string             `yaml:"run"`
}

// accelerators is SkyPilot's NAME:COUNT.
var accelerators = regexp.MustCompile(`^[A-Za-z0-9-]+:[1-9][0-9]*$`)

func TestFleetSkyPilotTask(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fleetDir, "skypilot-bench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var task skyTask
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true) // a misspelt SkyPilot field would be ignored by us, refused by sky
	if err := dec.Decode(&task); err != nil {
		t.Fatalf("skypilot-bench.yaml: %v", err)
	}
	if task.Name == "" || task.NumNodes < 2 {
		t.Errorf("name %q, num_nodes %d; want a name and a cluster of at least 2 nodes", task.Name, task.NumNodes)
	}
	if !accelerators.MatchString(task.Resources.Accelerators) {
		t.Errorf("resources.accelerators %q; want NAME:COUNT", task.Resources.Accelerators)
	}
	// The token is a secret (redacted by SkyPilot), in the variable bench
	// reads, not an env; the secret and the URL required at launch (null).
	if v, ok := task.Secrets[client.EnvToken]; !ok || v != nil {
		t.Errorf("secrets %v; want %s: null (required at launch)", task.Secrets, client.EnvToken)
	}
	if _, ok := task.Envs[client.EnvToken]; ok {
		t.Errorf("%s is an env; want it under secrets", client.EnvToken)
	}
	if v, ok := task.Envs[client.EnvURL]; !ok || v != nil {
		t.Errorf("envs %v; want %s: null (required at launch)", task.Envs, client.EnvURL)
	}
	// Every variable the scripts use is defined (by the task, SkyPilot or
	// the shell).
	for part, script := range map[string]string{"setup": task.Setup, "run": task.Run} {
		for _, m := range shellVar.FindAllStringSubmatch(script, -1) {
			v := m[1]
			_, env := task.Envs[v]
			_, sec := task.Secrets[v]
			if !env && !sec && !strings.HasPrefix(v, "SKYPILOT_") && v != "HOME" {
				t.Errorf("%s uses $%s, which the task does not define", part, v)
			}
		}
	}
	if !strings.Contains(task.Setup, "sha256sum -c") {
		t.Error("setup runs a downloaded binary without checking its SHA-256")
	}
	// run calls gpuscout bench --upload --token on each node.
	var cmds [][]string
	for i, line := range strings.Split(task.Run, "\n") {
		args, ok, err := gpuscoutArgs(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("run line %d: %v", i+1, err)
		}
		if ok {
			cmds = append(cmds, args)
		}
	}
	if len(cmds) != 1 || len(cmds[0]) == 0 || cmds[0][0] != "bench" {
		t.Fatalf("run calls gpuscout %q; want one gpuscout bench", cmds)
	}
	args := cmds[0]
	if v, _ := flagValue(args, "upload"); v != "$"+client.EnvURL {
		t.Errorf("--upload %q; want $%s", v, client.EnvURL)
	}
	if _, ok := flagValue(args, "token"); ok {
		t.Error("--token on the command line; want the token in the env only")
	}
	// Each node writes its own report file.
	if out, _ := flagValue(args, "out"); !strings.Contains(out, "SKYPILOT_NODE_RANK") {
		t.Errorf("--out %q; want a name with $SKYPILOT_NODE_RANK", out)
	}
	for i := range args {
		args[i] = shellVar.ReplaceAllString(args[i], "placeholder")
	}
	checkCommand(t, "skypilot-bench.yaml run", args)
}
