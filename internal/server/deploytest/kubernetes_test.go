package deploytest

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/server/client"
)

// object holds the parts of the Kubernetes objects the tests check, by the
// API's field names (unknown fields are ignored: the API server checks them).
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	StringData map[string]string `yaml:"stringData"` // Secret
	Spec       struct {
		// Job
		CompletionMode string `yaml:"completionMode"`
		Parallelism    *int   `yaml:"parallelism"`
		Completions    *int   `yaml:"completions"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		// Deployment, StatefulSet
		Replicas    *int   `yaml:"replicas"`
		ServiceName string `yaml:"serviceName"`
		// Deployment and StatefulSet hold matchLabels; a Service the labels.
		Selector map[string]any `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		VolumeClaimTemplates []struct {
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		} `yaml:"volumeClaimTemplates"`
		// Service
		ClusterIP string `yaml:"clusterIP"`
		Ports     []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type podSpec struct {
	RestartPolicy string            `yaml:"restartPolicy"`
	NodeSelector  map[string]string `yaml:"nodeSelector"`
	Tolerations   []struct {
		Key string `yaml:"key"`
	} `yaml:"tolerations"`
	Affinity struct {
		PodAntiAffinity struct {
			Required []struct {
				TopologyKey   string `yaml:"topologyKey"`
				LabelSelector struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"labelSelector"`
			} `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
		} `yaml:"podAntiAffinity"`
	} `yaml:"affinity"`
	SecurityContext struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	Containers []container `yaml:"containers"`
	Volumes    []struct {
		Name string `yaml:"name"`
	} `yaml:"volumes"`
}

type container struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe probe `yaml:"readinessProbe"`
	LivenessProbe  probe `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// readObjects decodes every document of a manifest in deploy/fleet.
func readObjects(t *testing.T, name string) []object {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fleetDir, name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(false)
	var out []object
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", name, len(out)+1, err)
		}
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Fatalf("%s: document %d has no apiVersion, kind or name", name, len(out)+1)
		}
		if o.Kind != "Namespace" && o.Metadata.Namespace != "gpuscout" {
			t.Errorf("%s: %s %s in namespace %q; want gpuscout", name, o.Kind, o.Metadata.Name, o.Metadata.Namespace)
		}
		out = append(out, o)
	}
}

func kinds(objs []object) string {
	var s []string
	for _, o := range objs {
		s = append(s, o.APIVersion+" "+o.Kind)
	}
	return strings.Join(s, ", ")
}

func byKind(objs []object) map[string]*object {
	m := map[string]*object{}
	for i := range objs {
		m[objs[i].Kind] = &objs[i]
	}
	return m
}

// matchLabels returns spec.selector.matchLabels as strings.
func matchLabels(o *object) map[string]string {
	m, _ := o.Spec.Selector["matchLabels"].(map[string]any)
	out := map[string]string{}
	for k, v := range m {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// selects reports whether every label of sel is among labels (and sel is not
// empty: an empty selector selects everything).
func selects(sel map[string]string, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

func anyStrings(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// commandArgs returns a container's gpuscout arguments with every $(VAR)
// checked against the container's env (each must be defined, from a Secret
// key that exists when secrets is given) and replaced by a placeholder.
func commandArgs(t *testing.T, where string, c *container, secrets map[string]*object) []string {
	t.Helper()
	env := map[string]bool{}
	for _, e := range c.Env {
		env[e.Name] = true
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && secrets != nil {
			ref := e.ValueFrom.SecretKeyRef
			s, ok := secrets[ref.Name]
			if !ok {
				t.Errorf("%s: env %s reads Secret %s, which the manifest does not define", where, e.Name, ref.Name)
			} else if _, ok := s.StringData[ref.Key]; !ok {
				t.Errorf("%s: env %s reads key %s of Secret %s, which has none", where, e.Name, ref.Key, ref.Name)
			}
		}
	}
	args := append(append([]string{}, c.Command...), c.Args...)
	if len(c.Command) > 0 && (c.Command[0] == "gpuscout" || strings.HasSuffix(c.Command[0], "/gpuscout")) {
		args = args[1:]
	}
	out := make([]string, len(args))
	for i, a := range args {
		for _, m := range kubeVar.FindAllStringSubmatch(a, -1) {
			if !env[m[1]] {
				t.Errorf("%s: argument %q uses $(%s), which the container's env does not define (Kubernetes would pass it literally)", where, a, m[1])
			}
		}
		out[i] = kubeVar.ReplaceAllString(a, "placeholder")
	}
	return out
}

// secretEnv returns the Secret reference of a container's env variable.
func secretEnv(c *container, name string) (secret, key string) {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key
		}
	}
	return "", ""
}

// flagValue returns the value after --name in args.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestFleetBenchJob(t *testing.T) {
	objs := readObjects(t, "bench-job.yaml")
	if got, want := kinds(objs), "batch/v1 Job"; got != want {
		t.Fatalf("objects %s; want %s", got, want)
	}
	job := &objs[0]
	pod := &job.Spec.Template.Spec
	// One pod per GPU node: N completions, all at once, indexed, never two on
	// one node.
	if job.Spec.Parallelism == nil || job.Spec.Completions == nil || *job.Spec.Parallelism < 1 || *job.Spec.Parallelism != *job.Spec.Completions {
		t.Errorf("parallelism %v, completions %v; want equal and at least 1 (one pod per GPU node, all at once)", job.Spec.Parallelism, job.Spec.Completions)
	}
	if job.Spec.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q; want Indexed", job.Spec.CompletionMode)
	}
	podLabels := job.Spec.Template.Metadata.Labels
	anti := pod.Affinity.PodAntiAffinity.Required
	if len(anti) != 1 || anti[0].TopologyKey != "kubernetes.io/hostname" || !selects(anti[0].LabelSelector.MatchLabels, podLabels) {
		t.Errorf("required pod anti-affinity %+v; want one term on kubernetes.io/hostname selecting the Job's own pods %v", anti, podLabels)
	}
	if pod.NodeSelector["nvidia.com/gpu.present"] != "true" {
		t.Errorf("nodeSelector %v; want nvidia.com/gpu.present: \"true\"", pod.NodeSelector)
	}
	if len(pod.Tolerations) == 0 || pod.Tolerations[0].Key != "nvidia.com/gpu" {
		t.Errorf("tolerations %v; want nvidia.com/gpu", pod.Tolerations)
	}
	if pod.RestartPolicy != "Never" || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		t.Errorf("restartPolicy %q, backoffLimit %v; want Never and 0 (a failed measurement is reported, not rerun)", pod.RestartPolicy, job.Spec.BackoffLimit)
	}
	if !pod.SecurityContext.RunAsNonRoot {
		t.Error("the pod may run as root; want runAsNonRoot")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers; want 1", len(pod.Containers))
	}
	c := &pod.Containers[0]
	if n, err := strconv.Atoi(c.Resources.Limits["nvidia.com/gpu"]); err != nil || n < 1 {
		t.Errorf("limits nvidia.com/gpu %q; want a whole number of GPUs, at least 1", c.Resources.Limits["nvidia.com/gpu"])
	}
	if c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation || !c.SecurityContext.ReadOnlyRootFilesystem {
		t.Error("the container may escalate privileges or write its root file system")
	}
	args := commandArgs(t, "bench-job.yaml", c, nil)
	if len(args) == 0 || args[0] != "bench" {
		t.Fatalf("args %q; want bench ...", c.Args)
	}
	// The upload URL and the token come from the Secret; the token only as
	// the variable bench reads, never on the command line (where every
	// process of the node can read it).
	raw, _ := flagValue(c.Args, "upload")
	if m := kubeVar.FindStringSubmatch(raw); m == nil {
		t.Errorf("--upload %q; want $(VAR) from the env", raw)
	} else if s, _ := secretEnv(c, m[1]); s == "" {
		t.Errorf("--upload $(%s): want the variable from a Secret", m[1])
	}
	if s, _ := secretEnv(c, client.EnvToken); s == "" {
		t.Errorf("env %s: want it from a Secret (bench reads the token from it)", client.EnvToken)
	}
	if _, ok := flagValue(args, "token"); ok {
		t.Error("--token on the command line; want the token in the env only")
	}
	out, ok := flagValue(args, "out")
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || strings.HasPrefix(out, m.MountPath+"/")
	}
	if !ok || !mounted {
		t.Errorf("--out %q; want a file on one of the container's volume mounts", out)
	}
	checkCommand(t, "bench-job.yaml", args)
}

func TestFleetServer(t *testing.T) {
	objs := readObjects(t, "server.yaml")
	want := "v1 Namespace, v1 Secret, v1 Service, apps/v1 StatefulSet, apps/v1 Deployment, v1 Service"
	if got := kinds(objs); got != want {
		t.Fatalf("objects %s; want %s", got, want)
	}
	secrets := map[string]*object{}
	services := map[string]*object{}
	for i := range objs {
		switch objs[i].Kind {
		case "Secret":
			secrets[objs[i].Metadata.Name] = &objs[i]
		case "Service":
			services[objs[i].Metadata.Name] = &objs[i]
		}
	}
	k := byKind(objs)
	sts, dep := k["StatefulSet"], k["Deployment"]
	for _, w := range []*object{sts, dep} {
		if !selects(matchLabels(w), w.Spec.Template.Metadata.Labels) {
			t.Errorf("%s %s: selector %v does not select its pods %v", w.Kind, w.Metadata.Name, matchLabels(w), w.Spec.Template.Metadata.Labels)
		}
		if w.Spec.Replicas == nil || *w.Spec.Replicas != 1 {
			t.Errorf("%s %s: replicas %v; want 1", w.Kind, w.Metadata.Name, w.Spec.Replicas)
		}
		if !w.Spec.Template.Spec.SecurityContext.RunAsNonRoot {
			t.Errorf("%s %s: the pod may run as root; want runAsNonRoot", w.Kind, w.Metadata.Name)
		}
	}
	// Each Service selects its workload's pods and targets a named port the
	// container has.
	pgSvc, ok := services[sts.Spec.ServiceName]
	if !ok {
		t.Fatalf("StatefulSet serviceName %q; no such Service", sts.Spec.ServiceName)
	}
	srvSvc := services[dep.Metadata.Name]
	if srvSvc == nil {
		t.Fatalf("no Service named %s for the Deployment", dep.Metadata.Name)
	}
	for _, p := range []struct {
		svc *object
		w   *object
	}{{pgSvc, sts}, {srvSvc, dep}} {
		if !selects(anyStrings(p.svc.Spec.Selector), p.w.Spec.Template.Metadata.Labels) {
			t.Errorf("Service %s: selector %v does not select the pods of %s", p.svc.Metadata.Name, p.svc.Spec.Selector, p.w.Metadata.Name)
		}
		c := &p.w.Spec.Template.Spec.Containers[0]
		if len(p.svc.Spec.Ports) != 1 || len(c.Ports) != 1 || p.svc.Spec.Ports[0].TargetPort != c.Ports[0].Name {
			t.Errorf("Service %s ports %+v, container ports %+v; want one port targeting the container's named port", p.svc.Metadata.Name, p.svc.Spec.Ports, c.Ports)
		}
	}
	if len(sts.Spec.VolumeClaimTemplates) != 1 {
		t.Errorf("StatefulSet: %d volumeClaimTemplates; want 1 (the database's own volume)", len(sts.Spec.VolumeClaimTemplates))
	}
	// The server: serve --db from the Secret, listening on its container port.
	c := &dep.Spec.Template.Spec.Containers[0]
	args := commandArgs(t, "server.yaml", c, secrets)
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("args %q; want serve ...", c.Args)
	}
	rawDB, _ := flagValue(c.Args, "db")
	m := kubeVar.FindStringSubmatch(rawDB)
	if m == nil {
		t.Fatalf("--db %q; want $(VAR) from the Secret", rawDB)
	}
	secName, key := secretEnv(c, m[1])
	sec := secrets[secName]
	if sec == nil {
		t.Fatalf("--db $(%s): not from a Secret of the manifest", m[1])
	}
	u, err := url.Parse(sec.StringData[key])
	if err != nil || u.Scheme != "postgres" {
		t.Fatalf("Secret %s key %s = %q; want a postgres:// URL (%v)", secName, key, sec.StringData[key], err)
	}
	// The URL reaches the StatefulSet's Service, with the database's user,
	// password and name.
	if want := pgSvc.Metadata.Name + "." + pgSvc.Metadata.Namespace + ".svc"; u.Hostname() != want || u.Port() != strconv.Itoa(pgSvc.Spec.Ports[0].Port) {
		t.Errorf("db URL host %s:%s; want %s:%d", u.Hostname(), u.Port(), want, pgSvc.Spec.Ports[0].Port)
	}
	pg := &sts.Spec.Template.Spec.Containers[0]
	pgEnv := map[string]string{}
	for _, e := range pg.Env {
		pgEnv[e.Name] = e.Value
	}
	pass, _ := u.User.Password()
	pwSecret, pwKey := secretEnv(pg, "POSTGRES_PASSWORD")
	if u.User.Username() != pgEnv["POSTGRES_USER"] || strings.TrimPrefix(u.Path, "/") != pgEnv["POSTGRES_DB"] {
		t.Errorf("db URL user %q, database %q; PostgreSQL is set up with %q, %q", u.User.Username(), u.Path, pgEnv["POSTGRES_USER"], pgEnv["POSTGRES_DB"])
	}
	if pwSecret != secName || secrets[secName].StringData[pwKey] != pass {
		t.Errorf("POSTGRES_PASSWORD from %s/%s; want the Secret %s holding the db URL's password", pwSecret, pwKey, secName)
	}
	listen, _ := flagValue(args, "listen")
	if _, port, _ := strings.Cut(listen, ":"); port != strconv.Itoa(c.Ports[0].ContainerPort) {
		t.Errorf("--listen %q; want :%d, the container port", listen, c.Ports[0].ContainerPort)
	}
	for _, p := range []struct{ name, path, port string }{
		{"readiness", c.ReadinessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Port},
		{"liveness", c.LivenessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Port},
	} {
		if p.path != "/healthz" || p.port != c.Ports[0].Name {
			t.Errorf("%s probe %s on %s; want /healthz on %s", p.name, p.path, p.port, c.Ports[0].Name)
		}
	}
	if ann := dep.Spec.Template.Metadata.Annotations; ann["prometheus.io/path"] != "/metrics" || ann["prometheus.io/port"] != strconv.Itoa(c.Ports[0].ContainerPort) {
		t.Errorf("scrape annotations %v; want /metrics on port %d", ann, c.Ports[0].ContainerPort)
	}
	checkCommand(t, "server.yaml", args)
}

// TestFleetCommentCommands checks the gpuscout command lines the files'
// comments tell users to run: indented comment lines (a usage block, "#   "),
// joined across trailing backslashes, whose command is gpuscout, directly or
// after kubectl exec's "--".
func TestFleetCommentCommands(t *testing.T) {
	entries, err := os.ReadDir(fleetDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(fleetDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			where := e.Name() + ":" + strconv.Itoa(i+1)
			text, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "#")
			if !ok || !strings.HasPrefix(text, "  ") {
				continue
			}
			for strings.HasSuffix(strings.TrimSpace(text), `\`) && i+1 < len(lines) {
				i++
				next, _ := strings.CutPrefix(strings.TrimSpace(lines[i]), "#")
				text = strings.TrimSuffix(strings.TrimSpace(text), `\`) + " " + next
			}
			if c, _, found := strings.Cut(text, " # "); found {
				text = c // a shell comment after the command
			}
			words, err := shellWords(strings.TrimSpace(text))
			if err != nil {
				// Prose with an apostrophe; a command line must parse.
				if strings.Contains(" "+text, " gpuscout ") || strings.Contains(text, "/gpuscout ") {
					t.Errorf("%s: %v", where, err)
				}
				continue
			}
			for j, w := range words {
				if j > 0 && words[j-1] != "--" {
					continue
				}
				if args, ok, _ := gpuscoutArgs(w); ok && len(args) == 0 {
					args = append([]string{}, words[j+1:]...)
					for k := range args {
						args[k] = shellVar.ReplaceAllString(args[k], "placeholder")
					}
					n++
					t.Run(where, func(t *testing.T) { checkCommand(t, where, args) })
					break
				}
			}
		}
	}
	if n < 2 {
		t.Errorf("%d gpuscout command lines in the comments of deploy/fleet; want at least 2 (token create for the Job and the server)", n)
	}
}
