package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// Dump writes cfg, a struct (or a pointer to one) that Load filled, as
// one JSON object: a member per field, named by its flag (or, for a
// field without one, its first variable), in field order. A Secret shows
// "[redacted]", a URL its password redacted, a duration its text
// ("1m30s"), a list not given []; any other value is what encoding/json makes of it, so a
// type holding a secret of its own redacts it in its MarshalJSON.
func Dump(cfg any) ([]byte, error) {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("config: Dump needs a struct, not %T", cfg)
	}
	p, err := planOf(v.Type())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i := range p.fields {
		f := &p.fields[i]
		if i > 0 {
			b.WriteString(",")
		}
		name := f.flag
		if name == "" {
			name = f.env[0]
		}
		b.WriteString(strconv.Quote(name))
		b.WriteString(":")
		fv := v.Field(f.index)
		if fv.Type() == typeDuration {
			b.WriteString(strconv.Quote(time.Duration(fv.Int()).String()))
			continue
		}
		if fv.Kind() == reflect.Slice && fv.IsNil() && !fv.Type().Implements(typeMarshaler) {
			b.WriteString("[]") // a list not given is empty, not null
			continue
		}
		js, err := json.Marshal(fv.Interface())
		if err != nil {
			return nil, fmt.Errorf("config: Dump of %s: %w", f.name, err)
		}
		b.Write(js)
	}
	b.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

var typeMarshaler = reflect.TypeFor[json.Marshaler]()
