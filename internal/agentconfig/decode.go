package agentconfig

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/yamlfields"
)

// decoder walks the YAML node tree against the Config type by reflection:
// unknown keys and wrong shapes are errors at their line, and the line of
// every field path is kept so that Validate's errors get theirs too.
type decoder struct {
	r     yamlfields.Reader
	lines map[string]int
}

func newDecoder(name string) *decoder {
	return &decoder{r: yamlfields.Reader{Path: name}, lines: map[string]int{}}
}

func (d *decoder) decode(b []byte, c *Config) error {
	root, err := d.r.Root(b, "an agent config (version: 1, node:, agent:, rules: ...)")
	if err != nil {
		return err
	}
	d.lines[""] = root.Line
	return d.value(root, reflect.ValueOf(c).Elem(), "", "the agent config")
}

// at places a validation error at the line of its field, or of the nearest
// enclosing field given in the file.
func (d *decoder) at(fe *FieldError) error {
	for p := fe.Field; ; p = parent(p) {
		if line, ok := d.lines[p]; ok {
			return &yamlfields.Error{Path: d.r.Path, Line: line, Field: fe.Field, Msg: fe.Msg}
		}
		if p == "" {
			return &yamlfields.Error{Path: d.r.Path, Line: 1, Field: fe.Field, Msg: fe.Msg}
		}
	}
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func (d *decoder) value(n *yaml.Node, v reflect.Value, path, what string) error {
	if _, ok := d.lines[path]; !ok {
		d.lines[path] = n.Line
	}
	if n.Kind == yaml.AliasNode {
		return d.r.Errf(n, path, "YAML aliases are not allowed in an agent config; write the value out")
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := n.Decode(v.Addr().Interface()); err != nil {
			return d.r.Errf(n, path, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Tag == "!!null" {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := d.value(n, p.Elem(), path, what); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		return d.structure(n, v, path, what)
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && v.Type().Elem().Kind() == reflect.String && n.Tag != "!!null" {
			// One value where a list of strings is wanted: a list of one.
			v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), reflect.ValueOf(n.Value).Convert(v.Type().Elem())))
			return nil
		}
		if n.Tag == "!!null" {
			return nil
		}
		s := reflect.MakeSlice(v.Type(), 0, len(n.Content))
		i := 0
		err := d.r.Sequence(n, path, func(item *yaml.Node) error {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(item, e, fmt.Sprintf("%s[%d]", path, i), path+" item"); err != nil {
				return err
			}
			s = reflect.Append(s, e)
			i++
			return nil
		})
		v.Set(s)
		return err
	case reflect.Map:
		if n.Tag == "!!null" {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return d.r.Errf(n, path, "want a mapping (name: value lines)")
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				return d.r.Errf(k, path+"."+k.Value, "given twice")
			}
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(val, e, path+"."+k.Value, path); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value), e)
		}
		v.Set(m)
		return nil
	default:
		if n.Kind != yaml.ScalarNode {
			return d.r.Errf(n, path, "want a single value, not a list or mapping")
		}
		if err := n.Decode(v.Addr().Interface()); err != nil {
			return d.r.Errf(n, path, "value %q is not %s", n.Value, kindName(v.Kind()))
		}
		return nil
	}
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	}
	return "a single value"
}

func (d *decoder) structure(n *yaml.Node, v reflect.Value, path, what string) error {
	if n.Tag == "!!null" {
		return nil
	}
	t := v.Type()
	var names []string
	index := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		index[name] = i
	}
	if path != "" {
		what = path
	}
	return d.r.Fields(n, what, names, func(key string, val *yaml.Node) error {
		p := key
		if path != "" {
			p = path + "." + key
		}
		d.lines[p] = keyLine(n, key)
		return d.value(val, v.Field(index[key]), p, p)
	})
}

// keyLine is the line of key in mapping n: a section's errors point at its
// name, not at its first entry.
func keyLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}
