package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// jsonModel answers, independently of Burrow's scanner, whether data is
// one JSON value with no duplicate key in any object and nesting of at
// most depth levels.
func jsonModel(data []byte, depth int) bool {
	if !json.Valid(data) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.object {
					top.key = true
				}
				if len(stack) >= depth {
					return false
				}
				stack = append(stack, &frame{object: v == '{', keys: map[string]bool{}, key: v == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.key {
				if top.keys[v] {
					return false
				}
				top.keys[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.object {
			top.key = true
		}
	}
}

// fuzzNode is the struct route's body: every field takes any JSON value
// except the nested ones, which take objects (or arrays of them) or null.
type fuzzNode struct {
	FuzzMeta
	K       any        `json:"k"`
	S       any        `json:"s"`
	Message any        `json:"message"`
	Next    *fuzzNode  `json:"next"`
	List    []fuzzNode `json:"list"`
}

// FuzzMeta is embedded: its field is promoted.
type FuzzMeta struct {
	Source any `json:"source"`
}

// nodeModel answers, independently of Burrow's scanner, whether v (a
// decoded JSON value) fits fuzzNode with one meaning: no key names a field
// of a struct only when case is ignored.
func nodeModel(v any) bool {
	nested := map[string]func(any) bool{
		"next": nodeModel,
		"list": func(v any) bool {
			list, ok := v.([]any)
			if v == nil {
				return true
			}
			for _, e := range list {
				if !nodeModel(e) {
					return false
				}
			}
			return ok
		},
	}
	names := []string{"source", "k", "s", "message", "next", "list"}
	switch obj := v.(type) {
	case nil:
		return true
	case map[string]any:
		for key, val := range obj {
			if check, ok := nested[key]; ok && !check(val) {
				return false
			}
			for _, name := range names {
				if key != name && strings.EqualFold(key, name) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// FuzzJSONBody checks the JSON body path against the models: a body is
// accepted exactly when it is valid JSON without duplicate keys or deep
// nesting whose numbers fit a float64 and, for a struct, whose keys name
// fields exactly or not at all; nothing else is ever answered but 200,
// 400 and 413.
func FuzzJSONBody(f *testing.F) {
	s := app.New()
	s.Post("/f", func(b app.Body[any]) error { return nil })
	s.Post("/s", func(b app.Body[fuzzNode]) error { return nil })
	for _, seed := range []string{
		`{}`, `[]`, `1`, `"s"`, `null`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `{"a":"\u0061","\u0061":1}`,
		`[[[[[[]]]]]]`, `{"a":[{"b":1},{"b":1}]}`, `{"a":1} x`, `{"a":`, ``, ` `, `{"a\"b":1,"a\"b":2}`, `["a","a"]`,
		`{"x":{"y":1},"y":1}`, "\xff", `{"a":1,}`,
		"{\"\xf6\":0,\"\x9a\":0}", // both keys decode to U+FFFD: a duplicate
		`[1e999]`,                 // valid JSON, but no float64 holds it
		`{"message":"hi","MESSAGE":"other"}`, "{\"\u212a\":1}", `{"k":1,"\u017f":2}`, `{"SOURCE":1}`,
		`{"list":[{"next":{"Message":1}}]}`, `{"next":{"next":null,"list":[null,{}]}}`, `{"next":"x"}`, `{"list":{}}`,
		`{"":[{"neXt":{"0":0}}]}`, // an array under an unknown key holds no fields
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		valid := jsonModel(data, 100) && json.Unmarshal(data, &v) == nil
		for path, want := range map[string]bool{"/f": valid, "/s": valid && nodeModel(v)} {
			req := httptest.NewRequest("POST", path, bytes.NewReader(data))
			req.Header.Set("Content-Type", "application/json")
			res, err := s.Inject(req)
			if err != nil {
				t.Fatal(err)
			}
			switch res.StatusCode {
			case 200, 400, 413:
			default:
				t.Fatalf("%s %q: status %d", path, data, res.StatusCode)
			}
			if (res.StatusCode == 200) != want {
				b, _ := io.ReadAll(res.Body)
				t.Fatalf("%s %q: status %d (%s), model says valid=%v", path, data, res.StatusCode, b, want)
			}
		}
	})
}

type fuzzQuery struct {
	A int      `query:"a"`
	B []string `query:"b"`
	C *bool    `query:"c"`
	D float64  `query:"d"`
	E uint8    `query:"e"`
}

// FuzzQuery checks the query decoder: 200 exactly when every typed key
// that is present converts, 400 otherwise, and the decoded values are the
// ones net/url and strconv read.
func FuzzQuery(f *testing.F) {
	s := app.New()
	var got fuzzQuery
	s.Get("/q", func(q app.Query[fuzzQuery]) error { got = q.Value; return nil })
	for _, seed := range []string{"", "a=1", "a=x", "a=1&a=2", "b=1&b=2", "c=true", "c=maybe", "d=1.5", "d=NaN", "e=255", "e=256", "e=-1", "a=%zz", "a=9223372036854775808"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u := &url.URL{Path: "/q", RawQuery: raw}
		req := httptest.NewRequest("GET", "/q", nil)
		req.URL, req.RequestURI = u, u.RequestURI()
		got = fuzzQuery{}
		res, err := s.Inject(req)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := url.ParseQuery(raw)
		ok := true
		check := func(key string, parse func(string) error) {
			if vs, present := q[key]; present && len(vs) > 0 && parse(vs[0]) != nil {
				ok = false
			}
		}
		check("a", func(s string) error { _, err := strconv.ParseInt(s, 10, 64); return err })
		check("c", func(s string) error { _, err := strconv.ParseBool(s); return err })
		check("d", func(s string) error { _, err := strconv.ParseFloat(s, 64); return err })
		check("e", func(s string) error { _, err := strconv.ParseUint(s, 10, 8); return err })
		if (res.StatusCode == 200) != ok {
			t.Fatalf("%q: status %d, model ok=%v", raw, res.StatusCode, ok)
		}
		if ok && len(q["a"]) > 0 {
			if want, _ := strconv.ParseInt(q["a"][0], 10, 64); int64(got.A) != want {
				t.Fatalf("%q: a = %d, want %d", raw, got.A, want)
			}
		}
		if ok && len(got.B) != len(q["b"]) {
			t.Fatalf("%q: b = %v, want %v", raw, got.B, q["b"])
		}
	})
}

// FuzzPathDecoding sends arbitrary request targets through routing and
// parameter decoding: the answer is 200, 400, 404 or 405 — never a 500 or
// a panic — and a matched parameter is its raw segment, unescaped.
func FuzzPathDecoding(f *testing.F) {
	s := app.New()
	s.Get("/users/:id", func(req *httpx.Request) (string, error) { return req.Param("id"), nil })
	s.Get("/files/*", func(req *httpx.Request) (string, error) { return req.Param("*"), nil })
	for _, seed := range []string{"/users/ada", "/users/a%2Fb", "/users/%zz", "/users/%", "/files/a/b%20c", "/users/", "//users/x",
		"/users/x?y=1", "/USERS/x", "/users/" + strings.Repeat("x", 200), "/users/%00", "/files/", "*"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || !strings.HasPrefix(target, "/") {
			return // net/http would refuse it before any handler
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL, req.RequestURI = u, target
		res, err := s.Inject(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		switch res.StatusCode {
		case 200:
			raw := u.EscapedPath()
			var seg string
			if rest, ok := strings.CutPrefix(raw, "/users/"); ok {
				seg = rest
			} else if rest, ok := strings.CutPrefix(raw, "/files/"); ok {
				seg = rest
			} else {
				t.Fatalf("%q: 200 for an unknown route", target)
			}
			want, err := url.PathUnescape(seg)
			if err != nil || want != string(b) {
				t.Fatalf("%q: param %q, want %q (%v)", target, b, want, err)
			}
		case 400, 404, 405:
		default:
			t.Fatalf("%q: status %d %s", target, res.StatusCode, b)
		}
	})
}
