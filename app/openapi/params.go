package openapi

import (
	"reflect"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app"
)

// params are the route's parameters. A list is written as the server
// reads it: a query's as repeated keys (form, exploded: the default), a
// header's as a comma-separated list (simple: the default; repeated lines
// are read too), a cookie's as a comma-separated value (form, not
// exploded).
func (b *builder) params(r app.RouteInfo) []any {
	var out []any
	for _, p := range r.Params {
		if p.Source == "header" && slices.Contains(ignoredHeaders, p.Name) {
			continue
		}
		sc := b.valueSchema(p)
		param := obj{"name": p.Name, "in": p.Source, "schema": sc}
		if p.Source == "cookie" && sc["type"] == "array" {
			// The server splits the one cookie's value at commas; form's
			// default, exploded, would be one cookie per item.
			param["style"], param["explode"] = "form", false
		}
		if p.Required {
			param["required"] = true
		}
		if p.Source == "path" && p.Name == "wildcard" && p.Field.Name == "" && strings.HasSuffix(r.Path, "*") {
			param["description"] = "The rest of the path; it may hold slashes."
		}
		out = append(out, param)
	}
	return out
}

// valueSchema is the schema of p, a text value: a parameter, or a
// value of a form body.
func (b *builder) valueSchema(p app.ParamInfo) obj {
	sc := b.schemas.of(p.Type, text)
	if p.Type.Kind() == reflect.Pointer {
		sc = b.schemas.of(p.Type.Elem(), text) // absent, never null: text has no null
	}
	if p.Field.Name != "" && applyRules(sc, p.Field) {
		refuseZero(sc, p.Type)
	}
	if p.HasDefault {
		sc["default"] = typedDefault(p.Default, p.Type)
	}
	return sc
}

// formBody is the body of route r, which reads the form r.Form: an
// object of its values, a file a binary string. A form with a file is
// multipart/form-data only; any other may be urlencoded or a JSON object
// too. Each media type has a schema of its own: the 3.0 rendition
// rewrites schemas in place.
func (b *builder) formBody(r app.RouteInfo) obj {
	sc, files, required := b.formSchema(r.Form)
	content := obj{"multipart/form-data": obj{"schema": sc}}
	if !files {
		for _, mt := range []string{"application/x-www-form-urlencoded", "application/json"} {
			sc, _, _ = b.formSchema(r.Form)
			content[mt] = obj{"schema": sc}
		}
	}
	rb := obj{"content": content}
	if required {
		rb["required"] = true
	}
	return rb
}

// formSchema is the schema of a form of values form, and whether it has
// a file and a required value.
func (b *builder) formSchema(form []app.ParamInfo) (sc obj, files, required bool) {
	props, names := obj{}, []any{}
	for _, p := range form {
		var v obj
		switch p.Type {
		case typeFile:
			v, files = obj{"type": "string", "format": "binary"}, true
		case typeFiles:
			v, files = obj{"type": "array", "items": obj{"type": "string", "format": "binary"}}, true
			applyRules(v, p.Field)
		default:
			v = b.valueSchema(p)
		}
		props[p.Name] = v
		if p.Required {
			names = append(names, p.Name)
		}
	}
	sc = obj{"type": "object", "properties": props}
	if len(names) > 0 {
		sc["required"] = names
	}
	return sc, files, len(names) > 0
}
