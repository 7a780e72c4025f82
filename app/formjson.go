package app

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/burrow-go/burrow/app/internal/jsonscan"
	"github.com/burrow-go/burrow/httpx"
)

// jsonForm reads data, an application/json body sent to a route that
// reads a form, as the form's values, so one route serves a browser's
// form and a program's JSON: the object's members are the values, by
// name. A string is its value; a number or a boolean is its JSON text,
// which the field converts as it converts a form's; null is no value; an
// array gives each of its items, as a repeated name does. A member that
// no field reads is dropped, as a form's is; one that a field reads and
// holds an object, or an array of arrays or objects, is a 400 naming it.
// The checks of a JSON body apply: an empty body, bad syntax, a key twice
// and nesting past the limit are refused.
func jsonForm(data []byte, reads func(name string) bool) (url.Values, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errEmptyJSON
	}
	if err := jsonscan.Check(data, maxJSONDepth, nil); err != nil {
		return nil, httpx.NewError(http.StatusBadRequest, "FST_ERR_CTP_INVALID_JSON_BODY", err.Error())
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, jsonError(data, err)
	}
	if members == nil { // the body is null
		return nil, validationError([]httpx.FieldError{{Path: textSources[srcForm].root, Rule: "type", Message: "must be object"}})
	}
	form := url.Values{}
	var bad []httpx.FieldError
	for name, raw := range members {
		if !reads(name) {
			continue
		}
		values, ok := jsonValues(raw)
		if !ok {
			bad = append(bad, httpx.FieldError{Path: textSources[srcForm].root + "/" + name, Rule: "type",
				Message: "must be a string, a number, a boolean, or an array of them"})
			continue
		}
		if len(values) > 0 {
			form[name] = values
		}
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b httpx.FieldError) int { return strings.Compare(a.Path, b.Path) })
		return nil, validationError(bad)
	}
	return form, nil
}

// jsonValues is the form values of a member's JSON value raw, valid
// JSON; false for a value a form cannot hold.
func jsonValues(raw json.RawMessage) ([]string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '{':
		return nil, false
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil, false
		}
		values := make([]string, 0, len(items))
		for _, it := range items {
			it = bytes.TrimSpace(it)
			if len(it) == 0 || it[0] == '[' || it[0] == '{' {
				return nil, false
			}
			v, ok := jsonScalar(it)
			if !ok {
				return nil, false
			}
			if v != nil {
				values = append(values, *v)
			}
		}
		return values, true
	}
	v, ok := jsonScalar(raw)
	if !ok || v == nil {
		return nil, ok
	}
	return []string{*v}, true
}

// jsonScalar is the text of a JSON string, number or boolean; nil for
// null.
func jsonScalar(raw json.RawMessage) (*string, bool) {
	switch raw[0] {
	case 'n':
		return nil, true
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return &s, true
	}
	s := string(raw) // a number, true or false, as JSON writes it
	return &s, true
}
