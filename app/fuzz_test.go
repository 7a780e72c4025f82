package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
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

// jsonNumberModel reads s, independently of Burrow's decoder, as
// encoding/json reads a bare number into v: a number starts with a minus
// or a digit and ends with a digit (encoding/json would also take
// surrounding spaces, and null).
func jsonNumberModel(s string, v any) error {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return errors.New("not a number")
	}
	return json.Unmarshal([]byte(s), v)
}

// FuzzQuery checks the query decoder: 200 exactly when net/url reads the
// whole query and every typed key that is present converts — numbers as
// encoding/json reads them, booleans as strconv does —, 400 otherwise,
// and the decoded values are the ones net/url and strconv read.
func FuzzQuery(f *testing.F) {
	s := app.New()
	var got fuzzQuery
	s.Get("/q", func(q app.Query[fuzzQuery]) error { got = q.Value; return nil })
	for _, seed := range []string{"", "a=1", "a=x", "a=1&a=2", "b=1&b=2", "c=true", "c=maybe", "d=1.5", "d=NaN", "e=255", "e=256", "e=-1", "a=%zz", "a=9223372036854775808",
		"d=Inf", "d=0x1p4", "d=1_0", "a=%2B1", "a=01", "e=-0", "d=1e400", "d=-0.0e-0"} {
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
		q, err := url.ParseQuery(raw)
		ok := err == nil // a query net/url cannot read whole is refused
		check := func(key string, parse func(string) error) {
			if vs, present := q[key]; present && len(vs) > 0 && parse(vs[0]) != nil {
				ok = false
			}
		}
		check("a", func(s string) error { var n int64; return jsonNumberModel(s, &n) })
		check("c", func(s string) error { _, err := strconv.ParseBool(s); return err })
		check("d", func(s string) error { var x float64; return jsonNumberModel(s, &x) })
		check("e", func(s string) error { var n uint8; return jsonNumberModel(s, &n) })
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
		res, b := injectTarget(t, s, "GET", target, u)
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

// fuzzSegments are the segments random route sets are made of: letters
// that collide after decoding, a non-ASCII one, characters that must be
// escaped, and parameters and a wildcard competing with them.
var fuzzSegments = []string{"a", "b", "me", "é", "a b", "x.y~", ":p", "*"}

// fuzzRoutes builds a route set from spec: each byte picks a segment; a
// byte with its high bit set also ends the route, and one with bit 6 set
// adds POST beside GET. Parameters are named by depth, so no two routes
// name one place differently; "*" ends a route.
func fuzzRoutes(spec []byte) map[string][]string {
	routes := map[string][]string{}
	var segs []string
	post := false
	end := func() {
		if len(segs) == 0 && !post {
			return
		}
		p := "/" + strings.Join(segs, "/")
		if !slices.Contains(routes[p], "GET") {
			routes[p] = append(routes[p], "GET")
		}
		if post && !slices.Contains(routes[p], "POST") {
			routes[p] = append(routes[p], "POST")
		}
		segs, post = segs[:0], false
	}
	for i, b := range spec {
		if i == 64 {
			break
		}
		seg := fuzzSegments[int(b&0x3f)%len(fuzzSegments)]
		if seg == ":p" {
			seg += strconv.Itoa(len(segs))
		}
		if len(segs) < 4 {
			segs = append(segs, seg)
		}
		post = post || b&0x40 != 0
		if b&0x80 != 0 || seg == "*" {
			end()
		}
	}
	end()
	return routes
}

// reencode writes target differently without changing what it means:
// each byte but '/' may become an escape, an escape of an unreserved
// character may become the character, and hex digits change case.
// Choices come from seed.
func reencode(target string, seed uint64) string {
	next := func() uint64 { // splitmix64
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	hexCase := func(h string) string {
		if next()&1 == 0 {
			return strings.ToLower(h)
		}
		return strings.ToUpper(h)
	}
	var b strings.Builder
	for i := 0; i < len(target); i++ {
		c := target[i]
		switch {
		case c == '%' && i+2 < len(target):
			v, err := strconv.ParseUint(target[i+1:i+3], 16, 8)
			if err == nil && unreserved(byte(v)) && next()%3 == 0 {
				b.WriteByte(byte(v))
			} else {
				b.WriteString("%" + hexCase(target[i+1:i+2]) + hexCase(target[i+2:i+3]))
			}
			i += 2
		case c != '/' && next()%3 == 0:
			b.WriteString("%" + hexCase(strconv.FormatUint(uint64(c)>>4, 16)) + hexCase(strconv.FormatUint(uint64(c)&15, 16)))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// encodingApps caches the servers of recent route sets: the fuzzer often
// keeps a route set and changes the path.
var encodingApps = map[string]*app.Server{}

func encodingApp(t *testing.T, spec []byte) *app.Server {
	if s, ok := encodingApps[string(spec)]; ok {
		return s
	}
	s := app.New()
	for p, methods := range fuzzRoutes(spec) {
		for _, m := range methods {
			if err := s.Route(m, p, echoRoute); err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
		}
	}
	notFound := func(prefix string) func(*httpx.Reply) error {
		return func(rep *httpx.Reply) error { return rep.Code(404).Send("not found under " + prefix) }
	}
	s.SetNotFoundHandler(notFound("/"))
	for _, prefix := range []string{"/a", "/a/b", "/é", "/me/a b"} {
		s.Register(func(c *app.Server) error { return c.SetNotFoundHandler(notFound(prefix)) }, app.Prefix(prefix))
	}
	if err := s.Ready(); err != nil {
		t.Fatal(err)
	}
	if len(encodingApps) >= 64 {
		clear(encodingApps)
	}
	encodingApps[string(spec)] = s
	return s
}

// FuzzPathEncoding checks that routing depends on what a path means, not
// on how it is written: for a random route set and path, writing the path
// another way (escaping any byte but '/', unescaping unreserved
// characters, changing the case of hex digits) reaches the same route with
// the same parameters, the same not-found handler, or the same 405 with
// the same Allow.
func FuzzPathEncoding(f *testing.F) {
	for _, seed := range []struct {
		routes []byte
		target string
	}{
		{[]byte{0x82, 0x80, 0x02}, "/me"},
		{[]byte{0x00, 0xc2, 0x00, 0x86}, "/a/me"},
		{[]byte{0x03, 0x83}, "/%C3%A9/%C3%A9"},
		{[]byte{0x06, 0x87}, "/users/a%2Fb"},
		{[]byte{0x46, 0x80, 0x07}, "/a%2Fb/c/d"},
		{[]byte{0x00, 0x81, 0x00, 0x86, 0x04, 0x84}, "/a/b%20c"},
		{[]byte{0x04, 0x85}, "/a%20b/x.y~"},
		{[]byte{0x00, 0x00, 0x00, 0x00}, "/a/a/a/" + strings.Repeat("%61", 101)},
		{[]byte{0x80}, "/a/b/c"},
		{[]byte{0xc1}, "/b"},
		{nil, "/me/a%20b/x"},
	} {
		f.Add(seed.routes, seed.target, uint64(len(seed.target)))
	}
	f.Fuzz(func(t *testing.T, routes []byte, target string, seed uint64) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, "?# \x7f") || strings.ContainsFunc(target, func(r rune) bool { return r < ' ' }) {
			return // not a path net/http would hand over
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return
		}
		other := reencode(target, seed)
		s := encodingApp(t, routes)
		// What a client can tell of where target went: status, body (a
		// route's pattern and parameters, or which not-found handler)
		// and Allow. A 405 body names the target as sent, so it is left out.
		answer := func(target string) string {
			u, err := url.ParseRequestURI(target)
			if err != nil {
				t.Fatalf("%q does not parse: %v", target, err)
			}
			var out strings.Builder
			for _, method := range []string{"GET", "POST"} {
				res, b := injectTarget(t, s, method, target, u)
				switch res.StatusCode {
				case 200, 404:
				case 405:
					b = ""
				default:
					t.Fatalf("%s %q: %d %s", method, target, res.StatusCode, b)
				}
				fmt.Fprintf(&out, "%s: %d %q allow=%q; ", method, res.StatusCode, b, res.Header.Get("Allow"))
			}
			return out.String()
		}
		if a, b := answer(target), answer(other); a != b {
			t.Fatalf("routes %q:\n  %q: %s\n  %q: %s", fuzzRoutes(routes), target, a, other, b)
		}
	})
}

// injectTarget serves method and target as net/http hands them over: u is
// target parsed, RequestURI is target as sent.
func injectTarget(t *testing.T, s *app.Server, method, target string, u *url.URL) (*http.Response, string) {
	req := httptest.NewRequest(method, "/", nil)
	req.URL, req.RequestURI = u, target
	res, err := s.Inject(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
