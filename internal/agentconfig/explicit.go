package agentconfig

import (
	"fmt"
	"reflect"
	"strings"
)

// A field left out of the file takes its default; a field written with an
// empty value (interval: 0s, stop: []) must not silently take the default
// too: the agent would then do what the file seems to forbid (sample every
// second, or run shutdown -h now). givenThenDefaulted finds the first field
// the file gives (lines holds the paths the decoder read) whose value
// ApplyDefaults replaced, comparing the config before and after it.
func givenThenDefaulted(before, after reflect.Value, path string, lines map[string]int) *FieldError {
	switch before.Kind() {
	case reflect.Struct:
		t := before.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			if fe := givenThenDefaulted(before.Field(i), after.Field(i), p, lines); fe != nil {
				return fe
			}
		}
		return nil
	case reflect.Slice:
		if before.Len() == after.Len() {
			for i := range before.Len() {
				if fe := givenThenDefaulted(before.Index(i), after.Index(i), fmt.Sprintf("%s[%d]", path, i), lines); fe != nil {
					return fe
				}
			}
			return nil
		}
	}
	if _, given := lines[path]; !given || reflect.DeepEqual(before.Interface(), after.Interface()) {
		return nil
	}
	return &FieldError{Field: path, Msg: fmt.Sprintf("an empty value (%s) stands for the default (%s) only when the field is left out: write the value you want, or leave %s out",
		describe(before), describe(after), path)}
}

func describe(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nothing"
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice {
		if v.Len() == 0 {
			return "[]"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if v.Kind() == reflect.String && v.Len() == 0 {
		return `""`
	}
	return fmt.Sprint(v.Interface())
}
