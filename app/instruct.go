package app

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/burrow-go/burrow/app/internal/inputfields"
	"github.com/burrow-go/burrow/app/internal/routepath"
	"github.com/burrow-go/burrow/app/internal/textdecode"
	"github.com/burrow-go/burrow/app/internal/validate"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/errkind"
)

// The text sources of an In struct's fields, in the order they are
// decoded: the tag that declares a field, and the root of its paths in
// a 400's validation array.
var textSources = [...]struct{ tag, root string }{
	srcPath:   {"path", "params"},
	srcQuery:  {"query", "querystring"},
	srcHeader: {"header", "headers"},
	srcCookie: {"cookie", "cookies"},
	srcForm:   {"form", "body"},
}

// bodyTag declares an In struct's body field.
const bodyTag = "body"

// inputTagged reports whether a field's tag fills it from the request's
// input — a text source or the body — and so never from a request value
// or a service.
func inputTagged(tag reflect.StructTag) bool {
	if _, ok := tag.Lookup(bodyTag); ok {
		return true
	}
	for _, s := range textSources {
		if _, ok := tag.Lookup(s.tag); ok {
			return true
		}
	}
	return false
}

// The text sources by index, so a request's decode switches on an
// integer, not on the tag's text.
const (
	srcPath = iota
	srcQuery
	srcHeader
	srcCookie
	srcForm // read from the body, after the others: see inputPlan.decodeForm
)

// textSource is the tag of f's text source ("path", "query", "header",
// "cookie", "form"), "" when it has none, or an error when it has two.
func textSource(t reflect.Type, f reflect.StructField) (string, error) {
	found := ""
	for _, s := range textSources {
		if _, ok := f.Tag.Lookup(s.tag); ok {
			if found != "" {
				return "", errkind.New(ErrInvalidInput, "%v.%s is tagged both %s and %s: a field holds one value", t, f.Name, found, s.tag)
			}
			found = s.tag
		}
	}
	return found, nil
}

// fieldsInput decodes and validates the path, query, header, cookie and
// form fields of a route's In struct into one value of its type, which the
// handler's and hooks' In structs copy those fields from. The values come
// from a pool and go back to it once the request is answered: no
// function ever holds one, only copies of its fields.
type fieldsInput struct {
	typ     reflect.Type
	sources [len(textSources)]fieldsSource
	files   []fileField // the form's file fields
	pool    sync.Pool   // of zeroed *typ
}

type fieldsSource struct {
	dec *textdecode.Decoder
	vd  *validate.Validator // nil without rules
}

// compileFields plans the text fields of In struct t for the route at
// path, whose parameters its path fields must name.
func compileFields(t reflect.Type, path string) (*fieldsInput, error) {
	fi := &fieldsInput{typ: t}
	fi.pool.New = func() any { return reflect.New(t).Interface() }
	if err := checkGroups(t, t, nil, ""); err != nil {
		return nil, fmt.Errorf("has an invalid input struct: %w", err)
	}
	params := pathParams(path)
	for i, s := range textSources {
		tag := inputfields.Only(s.tag)
		var skip func(reflect.StructField) bool
		if s.tag == "form" {
			files, err := compileFiles(t)
			if err != nil {
				return nil, fmt.Errorf("has an invalid input struct: %w", err)
			}
			fi.files, skip = files, isFileField
		}
		dec, err := textdecode.CompileExcept(t, tag, skip)
		if err != nil {
			return nil, fmt.Errorf("has an invalid input struct: %w", errkind.New(ErrInvalidInput, "%w", err))
		}
		for _, f := range inputfields.List(t, tag) {
			switch {
			case s.tag == "path" && !params[f.Key]:
				return nil, fmt.Errorf("has an invalid input struct: %w",
					errkind.New(ErrInvalidInput, "%v.%s takes path parameter %q, which %s does not have", t, inputfields.GoName(t, f.Path), f.Key, path))
			case s.tag == "path" && f.Tag.Get("default") != "":
				return nil, fmt.Errorf("has an invalid input struct: %w",
					errkind.New(ErrInvalidInput, "%v.%s: a path parameter is always present, so it takes no default", t, inputfields.GoName(t, f.Path)))
			}
		}
		if dec.Empty() && (s.tag != "form" || len(fi.files) == 0) {
			continue
		}
		switch s.tag {
		case "header":
			dec.Rekey(http.CanonicalHeaderKey)
			dec.SplitLists() // a header is a list, whose lines a proxy may merge
		case "cookie":
			dec.SplitLists() // what the document says of a slice cookie: form, not exploded
		}
		vd, err := validate.Compile(t, tag)
		if err != nil {
			return nil, fmt.Errorf("has an invalid %s field: %w", s.tag, errkind.New(ErrInvalidConstraint, "%w", err))
		}
		fi.sources[i] = fieldsSource{dec: dec, vd: vd}
	}
	return fi, nil
}

// checkGroups refuses what a composed input struct top (t is top, or a
// struct within it at index) cannot mean: rules or a default on a group
// field (query:"") rather than on its fields, and a field inside a group
// of one source (group) tagged with another, or as the body.
func checkGroups(top, t reflect.Type, index []int, group string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		at := append(slices.Clip(index), i)
		src := ""
		for _, s := range textSources {
			if _, ok := f.Tag.Lookup(s.tag); ok {
				src = s.tag
				break
			}
		}
		_, isBody := f.Tag.Lookup(bodyTag)
		if group != "" && (isBody || (src != "" && src != group)) {
			other := src
			if isBody {
				other = bodyTag
			}
			return errkind.New(ErrInvalidInput, "%v.%s is in a group of %s values, so it cannot be tagged %s",
				top, inputfields.GoName(top, at), group, other)
		}
		if group != "" && src != "" && !f.IsExported() && !f.Anonymous {
			return errkind.New(ErrInvalidInput, "%v.%s is not exported, so it cannot be set", top, inputfields.GoName(top, at))
		}
		switch {
		case f.Anonymous && src == "" && !isBody && f.Type.Kind() == reflect.Struct:
			if err := checkGroups(top, f.Type, at, group); err != nil {
				return err
			}
		case src == "form" && f.Type == typeFile && inputfields.IsGroup(f, src):
			return errkind.New(ErrInvalidInput, "%v.%s is a file: take it as *app.File, tagged with its part's name (form:\"%s\")",
				top, inputfields.GoName(top, at), strings.ToLower(f.Name))
		case src != "" && inputfields.IsGroup(f, src):
			for _, k := range [...]string{"default", "validate", "pattern"} {
				if _, ok := f.Tag.Lookup(k); ok {
					return errkind.New(ErrInvalidInput, "%v.%s is a group of %s values: a %s tag goes on its fields",
						top, inputfields.GoName(top, at), src, k)
				}
			}
			if err := checkGroups(top, f.Type, at, src); err != nil {
				return err
			}
		}
	}
	return nil
}

// pathParams are the parameter names of a route path: ":id" segments,
// and "*" for a wildcard.
func pathParams(path string) map[string]bool {
	out := map[string]bool{}
	for seg := range strings.SplitSeq(path, "/") {
		if name, ok := routepath.Param(seg); ok {
			out[name] = true
		}
	}
	return out
}

// decode fills a value of the In struct type from the request and keeps
// it in the exchange's input, until release; a value that does not
// convert is appended to bad. A malformed query is refused as Query's is.
func (fi *fieldsInput) decode(x *httpx.Exchange, bad []httpx.FieldError) ([]httpx.FieldError, error) {
	req := x.Request()
	raw := req.Raw()
	p := fi.pool.Get()
	v := reflect.ValueOf(p).Elem()
	for i := range fi.sources {
		dec := fi.sources[i].dec
		if dec == nil {
			continue
		}
		root := textSources[i].root
		switch i {
		case srcPath:
			bad = dec.DecodeOne(v, root, func(name string) (string, bool) { s := req.Param(name); return s, s != "" }, bad)
		case srcQuery:
			q := req.QueryValues()
			if err := req.QueryErr(); err != nil {
				fi.put(v, p)
				return bad, httpx.NewError(http.StatusBadRequest, codeBadQuery, "querystring is malformed: "+err.Error())
			}
			bad = dec.Decode(v, root, func(name string) []string { return q[name] }, bad)
		case srcHeader:
			bad = dec.Decode(v, root, func(key string) []string { return raw.Header[key] }, bad)
		case srcCookie:
			bad = dec.DecodeOne(v, root, func(name string) (string, bool) {
				if c, err := raw.Cookie(name); err == nil {
					return c.Value, true
				}
				return "", false
			}, bad)
		case srcForm:
			// Read from the body by decodeForm, once the other values
			// are known good: a request refused for its query is
			// refused before its body is read.
		}
	}
	x.Input()[inputFields] = p
	return bad, nil
}

// hasForm reports whether the In struct has form fields.
func (fi *fieldsInput) hasForm() bool { return fi.sources[srcForm].dec != nil }

// decodeForm fills the form fields of the value decode kept from form,
// the body's values.
func (fi *fieldsInput) decodeForm(x *httpx.Exchange, form url.Values, bad []httpx.FieldError) []httpx.FieldError {
	v := reflect.ValueOf(x.Input()[inputFields]).Elem()
	return fi.sources[srcForm].dec.Decode(v, textSources[srcForm].root, func(name string) []string { return form[name] }, bad)
}

// release gives the decoded value of x's request back to the pool, once
// nothing of the request can read it any more.
func (fi *fieldsInput) release(x *httpx.Exchange) {
	in := x.Input()
	if p := in[inputFields]; p != nil {
		in[inputFields] = nil
		fi.put(reflect.ValueOf(p).Elem(), p)
	}
}

// put zeroes v, the value p points to, and puts p back in the pool.
func (fi *fieldsInput) put(v reflect.Value, p any) {
	v.SetZero()
	fi.pool.Put(p)
}

// validate checks the decoded fields against their validate tags.
func (fi *fieldsInput) validate(x *httpx.Exchange, bad []httpx.FieldError) []httpx.FieldError {
	in := x.Input()[inputFields]
	if in == nil {
		return bad
	}
	v := reflect.ValueOf(in).Elem()
	for i := range fi.sources {
		if vd := fi.sources[i].vd; vd != nil {
			bad = vd.Validate(v, textSources[i].root, bad)
		}
	}
	return bad
}
