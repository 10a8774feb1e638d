package deploytest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/agentconfig"
)

// The parts of the Kubernetes objects the tests check, by the API's field
// names (unknown fields are ignored: the API server checks the rest).
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		// A DaemonSet's and ServiceMonitor's selector holds matchLabels; a
		// Service's is the labels themselves.
		Selector map[string]any `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
		// Service
		ClusterIP string `yaml:"clusterIP"`
		Ports     []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		// ServiceMonitor
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"endpoints"`
	} `yaml:"spec"`
}

type podSpec struct {
	NodeSelector map[string]string `yaml:"nodeSelector"`
	Tolerations  []struct {
		Key string `yaml:"key"`
	} `yaml:"tolerations"`
	HostNetwork     bool   `yaml:"hostNetwork"`
	HostPID         bool   `yaml:"hostPID"`
	DNSPolicy       string `yaml:"dnsPolicy"`
	SecurityContext struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	Containers []struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
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
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	} `yaml:"containers"`
	Volumes []struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
		HostPath *struct {
			Path string `yaml:"path"`
		} `yaml:"hostPath"`
	} `yaml:"volumes"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// readObjects decodes every document of a manifest file.
func readObjects(t *testing.T, name string) []object {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
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
		out = append(out, o)
	}
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

func byKind(objs []object) map[string]*object {
	m := map[string]*object{}
	for i := range objs {
		m[objs[i].Kind] = &objs[i]
	}
	return m
}

func TestKubernetesDaemonSet(t *testing.T) {
	objs := readObjects(t, "daemonset.yaml")
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.APIVersion+" "+o.Kind)
		if o.Kind != "Namespace" && o.Metadata.Namespace != "gpuscout" {
			t.Errorf("%s %s: namespace %q; want gpuscout", o.Kind, o.Metadata.Name, o.Metadata.Namespace)
		}
	}
	if got, want := strings.Join(kinds, ", "), "v1 Namespace, v1 ServiceAccount, v1 ConfigMap, apps/v1 DaemonSet, v1 Service"; got != want {
		t.Fatalf("objects %s; want %s", got, want)
	}
	k := byKind(objs)
	ds, svc, cm := k["DaemonSet"], k["Service"], k["ConfigMap"]
	pod := &ds.Spec.Template.Spec
	if len(matchLabels(ds)) == 0 {
		t.Error("the DaemonSet has no selector.matchLabels")
	}
	for key, v := range matchLabels(ds) {
		if ds.Spec.Template.Metadata.Labels[key] != v {
			t.Errorf("DaemonSet selector %s=%s does not match the pod's labels %v", key, v, ds.Spec.Template.Metadata.Labels)
		}
	}
	// GPU nodes only; the GPU taint tolerated.
	if pod.NodeSelector["nvidia.com/gpu.present"] != "true" {
		t.Errorf("nodeSelector %v; want nvidia.com/gpu.present: \"true\"", pod.NodeSelector)
	}
	if len(pod.Tolerations) == 0 || pod.Tolerations[0].Key != "nvidia.com/gpu" {
		t.Errorf("tolerations %v; want nvidia.com/gpu", pod.Tolerations)
	}
	// The node's network (for /proc/net/dev and SSH sessions), not its PIDs.
	if !pod.HostNetwork || pod.HostPID || pod.DNSPolicy != "ClusterFirstWithHostNet" {
		t.Errorf("hostNetwork %v, hostPID %v, dnsPolicy %q; want true, false, ClusterFirstWithHostNet", pod.HostNetwork, pod.HostPID, pod.DNSPolicy)
	}
	if !pod.SecurityContext.RunAsNonRoot {
		t.Error("the pod may run as root; want runAsNonRoot")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers; want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Args) != 3 || c.Args[0] != "agent" || c.Args[1] != "--config" {
		t.Fatalf("args %q; want agent --config FILE", c.Args)
	}
	if c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation || !c.SecurityContext.ReadOnlyRootFilesystem {
		t.Error("the container may escalate privileges or write its root file system")
	}
	// Requests and limits for CPU and memory, requests within limits.
	for _, r := range []string{"cpu", "memory"} {
		req, lim := quantity(t, c.Resources.Requests[r]), quantity(t, c.Resources.Limits[r])
		if req <= 0 || lim < req {
			t.Errorf("%s request %q, limit %q; want both, request <= limit", r, c.Resources.Requests[r], c.Resources.Limits[r])
		}
	}
	mounts := map[string]string{} // mount path -> volume
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
		if strings.HasPrefix(m.MountPath, "/host/") && !m.ReadOnly {
			t.Errorf("host mount %s is writable; want readOnly", m.MountPath)
		}
	}
	volumes := map[string]int{}
	for i, v := range pod.Volumes {
		volumes[v.Name] = i
	}
	for mountPath, hostPath := range map[string]string{"/host/proc": "/proc", "/host/sys": "/sys"} {
		i, ok := volumes[mounts[mountPath]]
		if !ok || pod.Volumes[i].HostPath == nil || pod.Volumes[i].HostPath.Path != hostPath {
			t.Errorf("%s: want the host's %s mounted read-only", mountPath, hostPath)
		}
	}
	// The config file is the ConfigMap's key, and a valid agent config.
	cfgDir, cfgFile := path.Split(c.Args[2])
	i, ok := volumes[mounts[strings.TrimSuffix(cfgDir, "/")]]
	if !ok || pod.Volumes[i].ConfigMap == nil || pod.Volumes[i].ConfigMap.Name != cm.Metadata.Name {
		t.Fatalf("--config %s is not in a mount of the ConfigMap %s", c.Args[2], cm.Metadata.Name)
	}
	text, ok := cm.Data[cfgFile]
	if !ok {
		t.Fatalf("ConfigMap %s has no key %s", cm.Metadata.Name, cfgFile)
	}
	cfg, err := agentconfig.Read(strings.NewReader(text), "ConfigMap "+cm.Metadata.Name+"/"+cfgFile, agentconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Autostop.Enabled {
		t.Error("autostop is on in the DaemonSet's config; a pod must not power its node off")
	}
	if cfg.Agent.StateDir != "" && mounts[cfg.Agent.StateDir] == "" {
		t.Errorf("state_dir %s is not a mounted volume (the root file system is read-only)", cfg.Agent.StateDir)
	}
	// The agent listens on every interface at the container port, which the
	// probes, the Service and the scrape annotations use.
	_, portStr, _ := net.SplitHostPort(cfg.Agent.Listen)
	port, _ := strconv.Atoi(portStr)
	if host, _, _ := net.SplitHostPort(cfg.Agent.Listen); host != "" || len(c.Ports) != 1 || c.Ports[0].ContainerPort != port {
		t.Fatalf("agent.listen %q, container ports %v; want :PORT and that one port", cfg.Agent.Listen, c.Ports)
	}
	portName := c.Ports[0].Name
	for _, p := range []struct{ name, path, port string }{
		{"readiness", c.ReadinessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Port},
		{"liveness", c.LivenessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Port},
	} {
		if p.path != "/healthz" || p.port != portName {
			t.Errorf("%s probe %s on %s; want /healthz on %s", p.name, p.path, p.port, portName)
		}
	}
	for _, ann := range []map[string]string{ds.Spec.Template.Metadata.Annotations, svc.Metadata.Annotations} {
		if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != portStr {
			t.Errorf("annotations %v; want prometheus.io/scrape \"true\" and port %s", ann, portStr)
		}
	}
	if svc.Spec.ClusterIP != "None" || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != portName || svc.Spec.Ports[0].Port != port {
		t.Errorf("Service: clusterIP %q, ports %+v; want headless, port %d to %s", svc.Spec.ClusterIP, svc.Spec.Ports, port, portName)
	}
	if len(svc.Spec.Selector) == 0 {
		t.Error("the Service has no selector")
	}
	for key, v := range svc.Spec.Selector {
		if ds.Spec.Template.Metadata.Labels[key] != v {
			t.Errorf("Service selector %s=%v does not match the pod's labels %v", key, v, ds.Spec.Template.Metadata.Labels)
		}
	}
}

func TestKubernetesServiceMonitor(t *testing.T) {
	svc := byKind(readObjects(t, "daemonset.yaml"))["Service"]
	objs := readObjects(t, "servicemonitor.yaml")
	if len(objs) != 1 || objs[0].APIVersion != "monitoring.coreos.com/v1" || objs[0].Kind != "ServiceMonitor" {
		t.Fatalf("servicemonitor.yaml holds %d objects; want one monitoring.coreos.com/v1 ServiceMonitor", len(objs))
	}
	sm := &objs[0]
	for key, v := range matchLabels(sm) {
		if svc.Metadata.Labels[key] != v {
			t.Errorf("ServiceMonitor selects %s=%s; the Service's labels are %v", key, v, svc.Metadata.Labels)
		}
	}
	if len(matchLabels(sm)) == 0 || len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != svc.Spec.Ports[0].Name || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor %+v; want it to select the Service and scrape /metrics on port %s", sm.Spec, svc.Spec.Ports[0].Name)
	}
}

// quantity reads the Kubernetes quantities the manifests use (100m, 64Mi, 1).
func quantity(t *testing.T, s string) float64 {
	t.Helper()
	mult := map[string]float64{"m": 1e-3, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "": 1}
	for _, suf := range []string{"Ki", "Mi", "Gi", "m", ""} {
		if num, ok := strings.CutSuffix(s, suf); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				break
			}
			return v * mult[suf]
		}
	}
	t.Errorf("quantity %q: not a number with m, Ki, Mi or Gi", s)
	return 0
}
