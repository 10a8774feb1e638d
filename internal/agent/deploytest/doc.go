// Package deploytest checks the deployment files in deploy/ (the systemd
// unit, the Kubernetes manifests, the Grafana dashboard) against the agent
// they deploy: the unit and manifests parse and run `gpuscout agent
// --config`, the manifests' config is a valid agent config, and every metric
// the dashboard queries is in the agent's registry. It has tests only.
package deploytest
