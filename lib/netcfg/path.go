package netcfg

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Set returns c with the field at path, a dotted JSON path in the network
// block ("hpcc.eta", "dctcp.window_bytes", "buffer_bytes", "cc"), set to
// value, a JSON value ("0.9", "true", `"hpcc"`), and validated. A path
// that names no field, or an object rather than a value, is an error
// listing the fields there; so is a value of the wrong type.
func (c Config) Set(path string, value json.RawMessage) (Config, error) {
	keys := strings.Split(path, ".")
	t := reflect.TypeOf(c)
	for i, k := range keys {
		fields := jsonFields(t)
		f, ok := fields[k]
		if !ok {
			return c, fmt.Errorf("netcfg: no field %q in the network block (known%s: %s)", strings.Join(keys[:i+1], "."), where(keys[:i]), strings.Join(sortedKeys(fields), ", "))
		}
		t = f
		if t.Kind() == reflect.Struct && i == len(keys)-1 {
			return c, fmt.Errorf("netcfg: %s is a block, not a value: name one of its fields (%s)", path, strings.Join(sortedKeys(jsonFields(t)), ", "))
		}
		if t.Kind() != reflect.Struct && i < len(keys)-1 {
			return c, fmt.Errorf("netcfg: %s is a value, not a block", strings.Join(keys[:i+1], "."))
		}
	}
	// The value wrapped in one object per key, read over c: the other
	// fields keep their values (UnmarshalJSON).
	patch := []byte(value)
	for i := len(keys) - 1; i >= 0; i-- {
		k, err := json.Marshal(keys[i])
		if err != nil {
			return c, err
		}
		patch = append(append(append([]byte("{"), k...), ':'), append(patch, '}')...)
	}
	out := c
	if err := json.Unmarshal(patch, &out); err != nil {
		return c, fmt.Errorf("netcfg: %s = %s: %w", path, value, err)
	}
	if err := out.Validate(); err != nil {
		return c, fmt.Errorf("netcfg: %s = %s: %w", path, value, err)
	}
	return out, nil
}

// where says in which block a path's last key was looked for.
func where(parents []string) string {
	if len(parents) == 0 {
		return ""
	}
	return " in " + strings.Join(parents, ".")
}

// jsonFields maps the JSON names of struct type t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

func sortedKeys(m map[string]reflect.Type) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
