package app_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// pageQuery is a group of query values: every exported field is one,
// named by its query tag or else by its Go name.
type pageQuery struct {
	Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
	Offset int `query:"offset" validate:"min=0"`
	Sort   string
}

type traceHeaders struct {
	Trace string `header:"x-trace-id"`
}

type sessionCookies struct {
	Sid string `cookie:"sid" validate:"required"`
}

type itemKey struct {
	ID int64 `path:"id" validate:"min=1"`
}

// groupsIn reads a group from each source.
type groupsIn struct {
	app.In
	Key  itemKey        `path:""`
	Page pageQuery      `query:""`
	Meta traceHeaders   `header:""`
	Sess sessionCookies `cookie:""`
}

// Filters is embedded exported, filters unexported: both are flattened.
type Filters struct {
	Done *bool  `query:"done"`
	Tag  string `query:"tag" validate:"max=8"`
}

type filters struct {
	Owner string `header:"X-Owner" default:"me"`
}

// userDep is an In struct of its own, embedded: its fields are filled too.
type userDep struct {
	app.In
	User string `name:"user"`
}

type embeddedIn struct {
	app.In
	Filters
	filters
	userDep
	Page pageQuery `query:""`
}

func composeServer(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, s.DecorateRequest("user", "ann"))
	require.NoError(t, app.Get(s, "/items/:id", func(_ context.Context, in groupsIn) (string, error) {
		return fmt.Sprintf("id=%d limit=%d offset=%d sort=%q trace=%q sid=%q",
			in.Key.ID, in.Page.Limit, in.Page.Offset, in.Page.Sort, in.Meta.Trace, in.Sess.Sid), nil
	}))
	// The hook takes the same struct, so it sees the same values.
	require.NoError(t, app.Get(s, "/items", func(_ context.Context, in embeddedIn) (string, error) {
		done := "any"
		if in.Done != nil {
			done = fmt.Sprint(*in.Done)
		}
		return fmt.Sprintf("done=%s tag=%q owner=%q user=%q limit=%d", done, in.Tag, in.Owner, in.User, in.Page.Limit), nil
	}, app.WithHook(app.PreHandler, func(in embeddedIn) error {
		if in.Tag == "hook" {
			return httpx.NewError(http.StatusTeapot, "HOOK", "the hook saw tag "+in.Tag)
		}
		return nil
	})))
	return s
}

// TestComposedInputStructs sends requests to routes whose In structs are
// composed of groups (a field tagged query:"", header:"", path:"" or
// cookie:"") and of embedded structs: their fields are read by their
// own tags, with their defaults and rules, and a failure names the
// value as the client sent it.
func TestComposedInputStructs(t *testing.T) {
	t.Parallel()
	s := composeServer(t)
	tests := []struct {
		name, target string
		header       []string
		status       int
		body         string
	}{
		{"groups, defaults", "/items/7", []string{"Cookie", "sid=s1"}, 200,
			`id=7 limit=20 offset=0 sort="" trace="" sid="s1"`},
		{"groups, every value", "/items/7?limit=5&offset=10&Sort=title", []string{"Cookie", "sid=s1", "X-Trace-Id", "t1"}, 200,
			`id=7 limit=5 offset=10 sort="title" trace="t1" sid="s1"`},
		{"a group's rule", "/items/7?limit=101", []string{"Cookie", "sid=s1"}, 400,
			`"validation":[{"path":"querystring/limit","rule":"max","message":"must be <= 100"}]`},
		{"a group's path value", "/items/0", []string{"Cookie", "sid=s1"}, 400,
			`"validation":[{"path":"params/id","rule":"min","message":"must be >= 1"}]`},
		{"a group's value that does not convert", "/items/7?offset=x", []string{"Cookie", "sid=s1"}, 400,
			`"validation":[{"path":"querystring/offset","rule":"type","message":"must be integer"}]`},
		{"a group's required cookie", "/items/7", nil, 400,
			`"validation":[{"path":"cookies/sid","rule":"required","message":"is required"}]`},
		{"embedded, defaults", "/items", nil, 200, `done=any tag="" owner="me" user="ann" limit=20`},
		{"embedded, every value", "/items?done=true&tag=red&limit=3", []string{"X-Owner", "bob"}, 200,
			`done=true tag="red" owner="bob" user="ann" limit=3`},
		{"an embedded struct's rule", "/items?tag=much-too-long", nil, 400,
			`"validation":[{"path":"querystring/tag","rule":"max","message":"must NOT have more than 8 characters"}]`},
		{"the hook gets the same values", "/items?tag=hook", nil, 418, `the hook saw tag hook`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, _ := do(t, s, "GET", tt.target, tt.header...)
			assert.Equal(t, tt.status, status, body)
			if tt.status == 200 {
				assert.Equal(t, tt.body, body)
			} else {
				assert.Contains(t, body, tt.body)
			}
		})
	}
}

// TestComposedInputStructsAreDescribed: a route's description lists the
// values of groups and embedded structs one by one, in field order.
func TestComposedInputStructsAreDescribed(t *testing.T) {
	t.Parallel()
	s := composeServer(t)
	require.NoError(t, s.Ready())
	got := map[string][]string{}
	for _, r := range s.Routes() {
		for _, p := range r.Params {
			got[r.Path] = append(got[r.Path], p.Source+":"+p.Name)
		}
	}
	assert.Equal(t, []string{"path:id", "query:limit", "query:offset", "query:Sort", "header:X-Trace-Id", "cookie:sid"}, got["/items/:id"])
	assert.Equal(t, []string{"query:done", "query:tag", "header:X-Owner", "query:limit", "query:offset", "query:Sort"}, got["/items"])
}

// TestComposedInputStructsCostNothingPerRequest: a composed struct is
// flattened at start-up, so filling it allocates no more than a flat
// one does.
func TestComposedInputStructsCostNothingPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts vary under the race detector")
	}
	type flat struct {
		app.In
		Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
		Offset int `query:"offset" validate:"min=0"`
	}
	type pagingOnly struct {
		Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
		Offset int `query:"offset" validate:"min=0"`
	}
	type grouped struct {
		app.In
		Page pagingOnly `query:""`
	}
	type embedded struct {
		app.In
		pagingOnly
	}
	s := app.New()
	require.NoError(t, app.Get(s, "/flat", func(_ context.Context, in flat) (string, error) { return "ok", nil }))
	require.NoError(t, app.Get(s, "/grouped", func(_ context.Context, in grouped) (string, error) { return "ok", nil }))
	require.NoError(t, app.Get(s, "/embedded", func(_ context.Context, in embedded) (string, error) { return "ok", nil }))
	require.NoError(t, s.Ready())
	want := allocsPerRequest(t, s, "/flat?limit=5&offset=1", `ok`)
	assert.Equal(t, want, allocsPerRequest(t, s, "/grouped?limit=5&offset=1", `ok`))
	assert.Equal(t, want, allocsPerRequest(t, s, "/embedded?limit=5&offset=1", `ok`))
}

// Composed In structs Burrow refuses, named so the messages are stable.
type (
	groupRule struct {
		app.In
		Page pageQuery `query:"" validate:"required"`
	}
	mixedGroup struct {
		app.In
		Page struct {
			Limit int    `query:"limit"`
			Trace string `header:"x-trace-id"`
		} `query:""`
	}
	namedGroup struct {
		app.In
		Page pageQuery `query:"page"`
	}
	embeddedPointer struct {
		app.In
		*Filters
	}
)

// In structs whose untagged fields Burrow cannot fill, named so the
// messages are stable: each error names the tag that was meant.
type (
	untaggedID struct {
		app.In
		ID int64
	}
	untaggedOneOfTwo struct {
		app.In
		Slug string
	}
	untaggedBody struct {
		app.In
		Todo newTodo
	}
	paramTagged struct {
		app.In
		ID int64 `param:"id"`
	}
	untaggedGroup struct {
		app.In
		Page pageQuery
	}
)

type scopedThing struct{ n int }

// withThing is a reusable group holding a request value and a query value.
type withThing struct {
	app.In
	Thing *scopedThing
	Q     string `query:"q"`
}

// TestEmbeddedRequestValueIsBuilt: a request value taken by a field of an
// embedded In struct is built for the request, once, as one taken by the
// In struct's own field is.
func TestEmbeddedRequestValueIsBuilt(t *testing.T) {
	t.Parallel()
	s := app.New()
	built := 0
	require.NoError(t, s.ProvideRequest(func() *scopedThing { built++; return &scopedThing{n: built} }))
	require.NoError(t, app.Get(s, "/", func(_ context.Context, in struct {
		app.In
		withThing
	}) (string, error) {
		if in.Thing == nil {
			return "no thing", nil
		}
		return fmt.Sprintf("thing %d, q %s", in.Thing.n, in.Q), nil
	}))
	status, body, _ := do(t, s, "GET", "/?q=x")
	assert.Equal(t, 200, status)
	assert.Equal(t, "thing 1, q x", body)
}

type hiddenInGroup struct {
	app.In
	Page struct {
		Limit int `query:"limit"`
		//lint:ignore U1000 the mistake under test
		offset int `query:"offset"`
	} `query:""`
}
