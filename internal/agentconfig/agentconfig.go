// Package agentconfig is the schema of the agent configuration, format
// version 1: what `gpuscout advise --export agent` writes and what
// `gpuscout agent` reads. One file per section: node (what the machine is
// and costs), agent (listen address, sampling interval, fake GPUs, state
// directory), collect (network interfaces and the egress basis), rules,
// notify and autostop. It imports nothing of gpuscout's above money and
// yamlfields, so that the agent owns the schema without importing advise.
package agentconfig

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Version is the format version this package writes and reads.
const Version = 1

// Config is the agent configuration for the nodes of one plan.
type Config struct {
	Version  int      `yaml:"version"`
	Node     Node     `yaml:"node"`
	Agent    Agent    `yaml:"agent,omitempty"`
	Collect  Collect  `yaml:"collect,omitempty"`
	Rules    []Rule   `yaml:"rules,omitempty"`
	Notify   Notify   `yaml:"notify,omitempty"`
	Autostop Autostop `yaml:"autostop,omitempty"`
}

// Default returns the configuration of an agent started without a file:
// version 1, every section at its defaults, the built-in rules that need no
// budget.
func Default() *Config {
	c := &Config{Version: Version, Rules: DefaultRules(Budgets{})}
	c.ApplyDefaults()
	return c
}

// ApplyDefaults fills every field left empty with its documented default.
func (c *Config) ApplyDefaults() {
	c.Node.applyDefaults()
	c.Agent.applyDefaults()
	c.Collect.applyDefaults()
	for i := range c.Rules {
		c.Rules[i].applyDefaults()
	}
	c.Notify.applyDefaults(c.Agent.StateDir)
	c.Autostop.applyDefaults()
}

// Options are the checks Validate takes from packages above this one.
type Options struct {
	// Metric, when set, says whether name is a metric the agent exports and
	// which label names its series carry; rules naming an unknown metric or
	// matching an unknown label are errors.
	Metric func(name string) (labels []string, ok bool)
	// Annotation, when set, checks a rule annotation's template (the
	// functions it calls exist, its syntax parses).
	Annotation func(text string) error
}

// Validate checks the config (after ApplyDefaults); it changes nothing.
// The error is a *FieldError naming the field by its path, such as
// rules[2].threshold.
func (c *Config) Validate(o Options) error {
	if c.Version != Version {
		return versionError(c.Version)
	}
	if err := c.Node.validate(); err != nil {
		return err
	}
	if err := c.Agent.validate(); err != nil {
		return err
	}
	if err := c.Collect.validate(); err != nil {
		return err
	}
	if err := c.Notify.validate(); err != nil {
		return err
	}
	if err := validateRules(c.Rules, &c.Notify, o); err != nil {
		return err
	}
	return c.Autostop.validate()
}

func versionError(v int) error {
	if v == 0 {
		return &FieldError{Field: "version", Msg: "format version 0 (or no version) is the format gpuscout wrote before the agent existed; " +
			"this gpuscout reads version 1, where alerts (expr strings) became rules (metric, op, threshold, for, aggregate), " +
			"notify.alertmanager became a list, notify.webhook became notify.webhooks, and the agent, collect and autostop sections were added: " +
			"write `version: 1` and convert the alerts, or export again with `gpuscout advise ... --export agent`"}
	}
	return &FieldError{Field: "version", Msg: fmt.Sprintf("value %d: this gpuscout reads format version %d", v, Version)}
}

// FieldError is a validation error about one field, named by its path in
// the file (node.instances, rules[1].for).
type FieldError struct {
	Field string
	Msg   string
}

// Error is "field: message".
func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// clone is a copy of c whose lists ApplyDefaults may fill without touching c's.
func (c *Config) clone() Config {
	v := *c
	v.Rules = slices.Clone(c.Rules)
	v.Notify.Exec = slices.Clone(c.Notify.Exec)
	v.Collect.Network.Exclude = slices.Clone(c.Collect.Network.Exclude)
	v.Autostop.Stop = slices.Clone(c.Autostop.Stop)
	v.Autostop.Hook = slices.Clone(c.Autostop.Hook)
	return v
}

// Write validates the config (with its defaults applied to a copy) and
// writes it, as given, as YAML with a header comment.
func Write(w io.Writer, c *Config) error {
	v := c.clone()
	v.ApplyDefaults()
	if err := v.Validate(Options{}); err != nil {
		return err
	}
	b, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "# gpuscout agent config, format version %d (README: agent)\n%s", c.Version, b)
	return err
}

// MaxFileSize bounds a config file.
const MaxFileSize = 1 << 20

// ReadFile reads, defaults and validates the config at path.
func ReadFile(path string, o Options) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, o)
}

// Read decodes one YAML document into a Config, rejecting unknown fields,
// applies the defaults and validates it. Every error is a *yamlfields.Error
// naming name:line and the field.
func Read(r io.Reader, name string, o Options) (*Config, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes; an agent config is a few kilobytes", name, MaxFileSize)
	}
	d := newDecoder(name)
	var c Config
	if err := d.decode(b, &c); err != nil {
		return nil, err
	}
	if c.Version != Version {
		return nil, d.at(versionError(c.Version).(*FieldError))
	}
	given := c.clone()
	c.ApplyDefaults()
	if fe := givenThenDefaulted(reflect.ValueOf(given), reflect.ValueOf(c), "", d.lines); fe != nil {
		return nil, d.at(fe)
	}
	if err := c.Validate(o); err != nil {
		if fe, ok := err.(*FieldError); ok {
			return nil, d.at(fe)
		}
		return nil, err
	}
	return &c, nil
}

// parent returns the path one step up from a field path: rules[2].for →
// rules[2] → rules → "".
func parent(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return ""
}
