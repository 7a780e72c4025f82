package app_test

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type contact struct {
	Email string `json:"email" validate:"required,format=email"`
}

// stamp is embedded: JSON promotes its fields, so its rules are the
// outer object's.
type stamp struct {
	By string `json:"by" validate:"required"`
}

type treeNode struct {
	Name     string      `json:"name" validate:"required"`
	Children []*treeNode `json:"children" validate:"max=3"`
}

type profile struct {
	stamp
	Contact contact            `json:"contact"` // a value: always there, always checked
	Backup  *contact           `json:"backup"`  // a nil pointer: not sent, not checked
	Tree    treeNode           `json:"tree"`
	Labels  map[string]contact `json:"labels"`
	Pair    [2]contact         `json:"pair"`
}

// Audit is exported so that encoding/json can allocate it when embedded
// by pointer.
type Audit struct {
	By string `json:"by" validate:"required"`
}

type stampedByPointer struct {
	*Audit
	Note string `json:"note"`
}

// validate posts body to a route taking Body[T] and returns the status and
// the validation array (or the whole body when there is none).
func validate[T any](t *testing.T, body string) (int, string) {
	t.Helper()
	s := app.New()
	s.Post("/", func(app.Body[T]) (string, error) { return "ok", nil })
	res := apptest.Do(t, s, "POST", "/", strings.NewReader(body), "Content-Type", "application/json")
	out := res.Body
	if _, list, ok := strings.Cut(out, `"validation":`); ok {
		out = strings.TrimSuffix(list, "}")
	}
	return res.StatusCode, out
}

func required(paths ...string) string {
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = `{"path":"` + p + `","rule":"required","message":"is required"}`
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestValidationCannotBeSkipped(t *testing.T) {
	t.Parallel()
	const pair = `"pair":[{"email":"a@b.co"},{"email":"c@d.co"}]`
	valid := `{"by":"ada","contact":{"email":"a@b.co"},"tree":{"name":"root"},` + pair + `}`
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"valid", valid, 200, "ok"},
		{"omitted nested values are still checked", `{}`, 400,
			required("body/by", "body/contact/email", "body/tree/name", "body/pair/0/email", "body/pair/1/email")},
		{"an empty object is not a way around required", `{"by":"ada","contact":{},"tree":{},` + pair + `}`, 400,
			required("body/contact/email", "body/tree/name")},
		{"a nil pointer is an object not sent", `{"by":"ada","contact":{"email":"a@b.co"},"backup":null,"tree":{"name":"r"},` + pair + `}`, 200, "ok"},
		{"a sent pointer is checked", `{"by":"ada","contact":{"email":"a@b.co"},"backup":{},"tree":{"name":"r"},` + pair + `}`, 400,
			required("body/backup/email")},
		{"every level of a recursive type", `{"by":"ada","contact":{"email":"a@b.co"},` + pair + `,` +
			`"tree":{"name":"r","children":[{"name":"a","children":[{"name":"b"},{"children":[{}]}]}]}}`, 400,
			required("body/tree/children/0/children/1/name", "body/tree/children/0/children/1/children/0/name")},
		{"a rule deep in a recursive type", `{"by":"ada","contact":{"email":"a@b.co"},` + pair + `,` +
			`"tree":{"name":"r","children":[{"name":"a","children":[{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"}]}]}}`, 400,
			`[{"path":"body/tree/children/0/children","rule":"max","message":"must NOT have more than 3 items"}]`},
		{"map values, in key order, keys escaped as in a JSON pointer", `{"by":"ada","contact":{"email":"a@b.co"},"tree":{"name":"r"},` + pair + `,` +
			`"labels":{"work":{"email":"nope"},"a/b~":{},"home":{"email":"h@b.co"}}}`, 400,
			`[{"path":"body/labels/a~1b~0/email","rule":"required","message":"is required"},` +
				`{"path":"body/labels/work/email","rule":"format","message":"must match format \"email\""}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, got := validate[profile](t, tt.body)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidationOfPromotedAndTopLevelValues(t *testing.T) {
	t.Parallel()
	status, got := validate[stampedByPointer](t, `{"note":"x"}`)
	assert.Equal(t, 400, status, "a nil embedded pointer reads as its zero value: the client cannot leave out the object, only its fields")
	assert.Equal(t, required("body/by"), got)
	status, _ = validate[stampedByPointer](t, `{"by":"ada"}`)
	assert.Equal(t, 200, status)

	status, got = validate[[]contact](t, `[{"email":"a@b.co"},{}]`)
	assert.Equal(t, 400, status, "a body that is an array of objects")
	assert.Equal(t, required("body/1/email"), got)
	status, got = validate[map[string]*contact](t, `{"x":{},"y":null}`)
	assert.Equal(t, 400, status, "a body that is a map of objects")
	assert.Equal(t, required("body/x/email"), got)
}

// A cyclic value (which no JSON body can produce, but a parser or a hook
// can) is cut at the JSON depth limit instead of exhausting the stack.
func TestValidationDepthIsBounded(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, s.AddContentTypeParser("application/x-cycle", func(_ *httpx.Request, _ io.Reader, v any) error {
		n := v.(*treeNode)
		n.Name = "loop"
		n.Children = []*treeNode{n}
		return nil
	}))
	s.Post("/", func(app.Body[treeNode]) (string, error) { return "ok", nil })
	req := httptest.NewRequest("POST", "/", strings.NewReader("x"))
	req.Header.Set("Content-Type", "application/x-cycle")
	res, err := s.Inject(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, 400, res.StatusCode)
	assert.Contains(t, string(b), `"rule":"depth","message":"is nested deeper than 100 levels"`)
}

func TestRecursiveTypesCompileAtReady(t *testing.T) {
	t.Parallel()
	type badNode struct {
		Kids []badNode `json:"kids"`
		Bad  *struct {
			N int `json:"n" validate:"min=x"`
		} `json:"bad"`
	}
	s := app.New()
	s.Post("/", func(app.Body[badNode]) {})
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidConstraint)
	assert.Contains(t, err.Error(), `min="x" on int`)
}

type twoRequired struct {
	A string `json:"a" validate:"required"`
	B string `json:"b" validate:"required"`
}

// TestValidationFailuresAreCapped: a body of a million bytes of empty
// objects breaks two rules per byte triple; the answer lists the first
// 100 failures and says the rest were left out, instead of growing with
// the body (it was 65 MB). Up to the cap, every failure is listed and
// nothing is said of more.
func TestValidationFailuresAreCapped(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Post("/", func(app.Body[[]twoRequired]) (string, error) { return "ok", nil })
	post := func(items int) (*apptest.Response, httpx.ErrorBody) {
		body := "[" + strings.Repeat("{},", items-1) + "{}]"
		res := apptest.Do(t, s, "POST", "/", strings.NewReader(body), "Content-Type", "application/json")
		var eb httpx.ErrorBody
		res.JSON(t, &eb)
		return res, eb
	}

	res, eb := post((app.DefaultBodyLimit - 2) / 3)
	assert.Equal(t, 400, res.StatusCode)
	assert.Equal(t, "FST_ERR_VALIDATION", eb.Code)
	require.Equal(t, 100, len(eb.Validation))
	assert.Equal(t, httpx.FieldError{Path: "body/0/a", Rule: "required", Message: "is required"}, eb.Validation[0])
	assert.Equal(t, httpx.FieldError{Path: "body/49/b", Rule: "required", Message: "is required"}, eb.Validation[99])
	assert.True(t, strings.HasPrefix(eb.Message, "body/0/a is required, body/0/b is required, body/1/a is required"), eb.Message)
	assert.True(t, strings.HasSuffix(eb.Message, "body/49/b is required; more failures were left out: at most 100 are reported"), eb.Message)
	assert.Less(t, len(res.Body), 16<<10, "the answer does not grow with the body")

	res, eb = post(50)
	assert.Equal(t, 400, res.StatusCode)
	require.Equal(t, 100, len(eb.Validation), "exactly the cap: every failure listed")
	assert.True(t, strings.HasSuffix(eb.Message, "body/49/b is required"), eb.Message)
	assert.NotContains(t, eb.Message, "left out")

	res, eb = post(51)
	assert.Equal(t, 400, res.StatusCode)
	require.Equal(t, 100, len(eb.Validation), "one over the cap")
	assert.Contains(t, eb.Message, "more failures were left out")
}

type tenRequired struct {
	A string `json:"a" validate:"required"`
	B string `json:"b" validate:"required"`
	C string `json:"c" validate:"required"`
	D string `json:"d" validate:"required"`
	E string `json:"e" validate:"required"`
	F string `json:"f" validate:"required"`
	G string `json:"g" validate:"required"`
	H string `json:"h" validate:"required"`
	I string `json:"i" validate:"required"`
	J string `json:"j" validate:"required"`
}

type keyedNode struct {
	Kids map[string]keyedNode `json:"kids"`
	Name string               `json:"name" validate:"required"`
}

// TestValidationEchoesMapKeysCut: a failure's path repeats the client's
// map keys, twice (in validation and in the message); a key is cut after
// its first 64 bytes and a path after 1 KiB, so the answer stays small
// however long the keys or deep the nesting. A 1 MiB key under ten
// failing fields was answered with 20 MB.
func TestValidationEchoesMapKeysCut(t *testing.T) {
	t.Parallel()
	s := app.New()
	s.Post("/flat", func(app.Body[map[string]tenRequired]) (string, error) { return "ok", nil })
	s.Post("/deep", func(app.Body[keyedNode]) (string, error) { return "ok", nil })
	post := func(target, body string) (*apptest.Response, httpx.ErrorBody) {
		res := apptest.Do(t, s, "POST", target, strings.NewReader(body), "Content-Type", "application/json")
		var eb httpx.ErrorBody
		res.JSON(t, &eb)
		require.Equal(t, 400, res.StatusCode, "%.200s", res.Body)
		return res, eb
	}

	key := strings.Repeat("k", app.DefaultBodyLimit-16)
	res, eb := post("/flat", `{"`+key+`":{}}`)
	assert.Less(t, len(res.Body), 16<<10)
	require.Len(t, eb.Validation, 10)
	assert.Equal(t, "body/"+key[:64]+"…/a", eb.Validation[0].Path)
	assert.True(t, strings.HasPrefix(eb.Message, "body/"+key[:64]+"…/a is required, "), "%.200s", eb.Message)

	// 49 levels of 64-byte keys, as deep as a body may nest, then 100
	// failing children: each path would be 3 KiB.
	level := strings.Repeat("n", 64)
	var leaves string
	for i := range 100 {
		leaves += `"` + level[:60] + strconv.Itoa(1000+i) + `":{},`
	}
	body := `{"name":"x","kids":{` + strings.TrimSuffix(leaves, ",") + `}}`
	for range 48 {
		body = `{"name":"x","kids":{"` + level + `":` + body + `}}`
	}
	res, eb = post("/deep", body)
	require.Len(t, eb.Validation, 100)
	longest := 0
	for _, f := range eb.Validation {
		longest = max(longest, len(f.Path))
	}
	assert.Equal(t, 1<<10+len("…"), longest, "a path is cut after 1 KiB")
	assert.True(t, strings.HasPrefix(eb.Validation[0].Path, "body/kids/"+level+"/kids/"), "%.100s", eb.Validation[0].Path)
	assert.Less(t, len(res.Body), 256<<10, "the answer has a bound, whatever the keys and the nesting")
}

type playgroundTagged struct {
	Email string   `json:"email" validate:"omitempty,email"`
	ID    string   `json:"id" validate:"uuid"`
	Site  string   `json:"site" validate:"url"`
	Home  string   `json:"home" validate:"uri"`
	Addr  string   `json:"addr" validate:"ipv4"`
	Role  string   `json:"role" validate:"oneof=admin member"`
	Age   int      `json:"age" validate:"gte=18,lte=130"`
	Nick  string   `json:"nick" validate:"gte=2,lte=4"`
	Tags  []string `json:"tags" validate:"lte=2"`
	Score *int     `json:"score" validate:"omitempty,gte=1"`
}

// go-playground/validator's spellings of rules Burrow has mean Burrow's
// rules, and a failing field reports Burrow's rule name.
func TestValidatorAcceptsPlaygroundSpellings(t *testing.T) {
	t.Parallel()
	// with is a valid body with one field changed.
	with := func(key string, v any) string {
		body := map[string]any{"email": "a@b.co", "id": "123e4567-e89b-12d3-a456-426614174000", "site": "https://x.io/a",
			"home": "urn:isbn:1", "addr": "10.0.0.1", "role": "member", "age": 18, "nick": "ab", "tags": []string{"a", "b"}, "score": 1}
		body[key] = v
		b, err := json.Marshal(body)
		require.NoError(t, err)
		return string(b)
	}
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"all valid", with("email", "a@b.co"), 200, "ok"},
		{"omitempty string empty", with("email", ""), 200, "ok"},
		{"omitempty pointer null", with("score", nil), 200, "ok"},
		{"email", with("email", "nope"), 400, `[{"path":"body/email","rule":"format","message":"must match format \"email\""}]`},
		{"uuid", with("id", "123"), 400, `[{"path":"body/id","rule":"format","message":"must match format \"uuid\""}]`},
		{"url", with("site", "x.io"), 400, `[{"path":"body/site","rule":"format","message":"must match format \"uri\""}]`},
		{"uri", with("home", "/a"), 400, `[{"path":"body/home","rule":"format","message":"must match format \"uri\""}]`},
		{"ipv4", with("addr", "::1"), 400, `[{"path":"body/addr","rule":"format","message":"must match format \"ipv4\""}]`},
		{"oneof", with("role", "root"), 400,
			`[{"path":"body/role","rule":"enum","message":"must be equal to one of the allowed values: admin, member"}]`},
		{"gte on a number", with("age", 17), 400, `[{"path":"body/age","rule":"min","message":"must be \u003e= 18"}]`},
		{"lte on a number", with("age", 131), 400, `[{"path":"body/age","rule":"max","message":"must be \u003c= 130"}]`},
		{"gte on a string counts characters", with("nick", "é"), 400,
			`[{"path":"body/nick","rule":"min","message":"must NOT have fewer than 2 characters"}]`},
		{"lte on a string counts characters", with("nick", "ééééé"), 400,
			`[{"path":"body/nick","rule":"max","message":"must NOT have more than 4 characters"}]`},
		{"lte on a slice counts items", with("tags", []string{"a", "b", "c"}), 400,
			`[{"path":"body/tags","rule":"max","message":"must NOT have more than 2 items"}]`},
		{"omitempty pointer set", with("score", 0), 400, `[{"path":"body/score","rule":"min","message":"must be \u003e= 1"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body := validate[playgroundTagged](t, tt.body)
			assert.Equal(t, tt.status, status)
			if tt.status == 200 {
				assert.Contains(t, body, tt.want)
				return
			}
			assert.JSONEq(t, tt.want, body)
		})
	}
}

// A rule Burrow does not have fails Ready with an error that names
// Burrow's way to say it.
func TestValidatorNamesBurrowSpelling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server)
		msg   string
	}{
		{"gt", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"gt=1"`
			}]) {
			})
		}, `unknown rule "gt": Burrow's bounds include the bound: use min=`},
		{"datetime", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				D string `json:"d" validate:"datetime=2006-01-02"`
			}]) {
			})
		}, `unknown rule "datetime": use format=date-time (RFC 3339) or format=date`},
		{"dive", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				L []string `json:"l" validate:"dive,required"`
			}]) {
			})
		}, `unknown rule "dive": validation descends into slices and maps of structs by itself`},
		{"anything else", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				S string `json:"s" validate:"excludesall=!"`
			}]) {
			})
		}, `unknown rule "excludesall": Burrow's rules are required, min, max, len, enum, format and the pattern tag`},
		{"omitempty on a number", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"omitempty,min=1"`
			}]) {
			})
		}, "omitempty on int: Burrow checks a number even when it is zero; make the field a pointer to make it optional"},
		{"oneof without values", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				S string `json:"s" validate:"oneof= "`
			}]) {
			})
		}, "oneof needs values, as enum=a|b or oneof=a b"},
		{"oneof on a bool", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				B bool `json:"b" validate:"oneof=true"`
			}]) {
			})
		}, "oneof on bool: Burrow's enum and oneof take strings and numbers"},
		{"oneof value that is no number, on a number", func(s *app.Server) {
			s.Post("/", func(app.Body[struct {
				N int `json:"n" validate:"oneof=1 two"`
			}]) {
			})
		}, `oneof value "two" is not an integer, as int needs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := app.New()
			tt.build(s)
			err := s.Ready()
			require.ErrorIs(t, err, app.ErrInvalidConstraint)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}
