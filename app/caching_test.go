package app_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// versioned is a reply that knows its tag.
type versioned struct {
	Text string `json:"text"`
	Rev  string `json:"-"`
}

func (v versioned) ETag() string { return v.Rev }

// TestETagRevalidation: a route with ETag sends a strong tag of its body
// and Cache-Control; If-None-Match with it (strong, weak, in a list, or
// "*") answers 304 with the same ETag and Cache-Control and no body, to
// GET and HEAD; a changed body has another tag; the handler runs once a
// request; a route without the option sends neither header.
func TestETagRevalidation(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	var text atomic.Value
	text.Store("one")
	var calls atomic.Int64
	require.NoError(t, app.Get(s, "/note", func(context.Context, struct{}) (note, error) {
		calls.Add(1)
		return note{ID: 1, Text: text.Load().(string)}, nil
	}, app.ETag(), app.CacheControl("private, no-cache")))
	require.NoError(t, app.Get(s, "/plain", func(context.Context, struct{}) (note, error) {
		return note{ID: 1}, nil
	}))
	require.NoError(t, app.Get(s, "/versioned", func(context.Context, struct{}) (versioned, error) {
		return versioned{Text: "x", Rev: "r7"}, nil
	}, app.ETag()))
	base := apptest.Serve(t, s)

	first := apptest.Fetch(t, "GET", base+"/note")
	require.Equal(t, http.StatusOK, first.StatusCode)
	tag := first.Header.Get("ETag")
	require.Regexp(t, `^"[A-Za-z0-9_-]{22}"$`, tag, "a strong tag")
	assert.Equal(t, "private, no-cache", first.Header.Get("Cache-Control"))
	assert.JSONEq(t, `{"id":1,"text":"one"}`, first.Body)

	for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
		for _, method := range []string{"GET", "HEAD"} {
			t.Run(method+" "+inm, func(t *testing.T) {
				before := calls.Load()
				res := apptest.Fetch(t, method, base+"/note", "If-None-Match", inm)
				assert.Equal(t, http.StatusNotModified, res.StatusCode)
				assert.Empty(t, res.Body)
				assert.Equal(t, tag, res.Header.Get("ETag"))
				assert.Equal(t, "private, no-cache", res.Header.Get("Cache-Control"))
				assert.Empty(t, res.Header.Get("Content-Type"))
				assert.Equal(t, before+1, calls.Load(), "the handler ran once")
			})
		}
	}
	head := apptest.Fetch(t, "HEAD", base+"/note")
	assert.Equal(t, http.StatusOK, head.StatusCode)
	assert.Equal(t, tag, head.Header.Get("ETag"), "HEAD gets GET's tag")

	for _, inm := range []string{`"other"`, `W/"other"`, `garbage`, tag[:len(tag)-1]} {
		res := apptest.Fetch(t, "GET", base+"/note", "If-None-Match", inm)
		assert.Equal(t, http.StatusOK, res.StatusCode, inm)
		assert.NotEmpty(t, res.Body)
	}

	text.Store("two")
	changed := apptest.Fetch(t, "GET", base+"/note", "If-None-Match", tag)
	assert.Equal(t, http.StatusOK, changed.StatusCode)
	assert.NotEqual(t, tag, changed.Header.Get("ETag"))
	assert.JSONEq(t, `{"id":1,"text":"two"}`, changed.Body)

	plain := apptest.Fetch(t, "GET", base+"/plain", "If-None-Match", "*")
	assert.Equal(t, http.StatusOK, plain.StatusCode)
	assert.Empty(t, plain.Header.Get("ETag"))
	assert.Empty(t, plain.Header.Get("Cache-Control"))

	v := apptest.Fetch(t, "GET", base+"/versioned")
	assert.Equal(t, `"r7"`, v.Header.Get("ETag"))
	assert.Equal(t, http.StatusNotModified, apptest.Fetch(t, "GET", base+"/versioned", "If-None-Match", `"r7"`).StatusCode)
}

// TestETagOnlyOn200: error replies carry no ETag or Cache-Control, and
// a 201 none either; a Tagged value with a tag that cannot be sent is a
// 500.
func TestETagOnlyOn200(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Get(s, "/missing", func(context.Context, struct{}) (note, error) {
		return note{}, httpx.NewError(http.StatusNotFound, "FST_ERR_NOT_FOUND", "no note")
	}, app.ETag(), app.CacheControl("public, max-age=60")))
	require.NoError(t, app.Post(s, "/made", func(context.Context, struct{}) (app.Created[note], error) {
		return app.Created[note]{Location: "/n/1", Value: note{ID: 1}}, nil
	}, app.ETag(), app.CacheControl("no-store")))
	require.NoError(t, app.Get(s, "/bad", func(context.Context, struct{}) (versioned, error) {
		return versioned{Rev: `a"b`}, nil
	}, app.ETag()))
	base := apptest.Serve(t, s)

	miss := apptest.Fetch(t, "GET", base+"/missing", "If-None-Match", "*")
	assert.Equal(t, http.StatusNotFound, miss.StatusCode)
	assert.Empty(t, miss.Header.Get("ETag"))
	assert.Empty(t, miss.Header.Get("Cache-Control"))

	made := apptest.Fetch(t, "POST", base+"/made")
	assert.Equal(t, http.StatusCreated, made.StatusCode)
	assert.Empty(t, made.Header.Get("ETag"))

	bad := apptest.Fetch(t, "GET", base+"/bad")
	assert.Equal(t, http.StatusInternalServerError, bad.StatusCode)
	assert.Empty(t, bad.Header.Get("ETag"))
}

type editNote struct {
	app.In
	Pre  app.Preconditions `header:""`
	Text string            `query:"text"`
}

// TestPreconditions: an unsafe route compares If-Match with the current
// tag (the one GET sent, from TagOf): the tag or "*" proceeds, another
// tag or a weak one is 412 in the error shape and changes nothing;
// without If-Match it proceeds, unless RequireIfMatch, which answers 428
// before the handler.
func TestPreconditions(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	var cur atomic.Value
	cur.Store(note{ID: 1, Text: "one"})
	var changes atomic.Int64
	edit := func(_ context.Context, in editNote) (note, error) {
		tag, err := app.TagOf(cur.Load())
		if err != nil {
			return note{}, err
		}
		if err := in.Pre.Check(tag); err != nil {
			return note{}, err
		}
		changes.Add(1)
		n := note{ID: 1, Text: in.Text}
		cur.Store(n)
		return n, nil
	}
	require.NoError(t, app.Get(s, "/note", func(context.Context, struct{}) (note, error) { return cur.Load().(note), nil }, app.ETag()))
	require.NoError(t, app.Patch(s, "/note", edit))
	require.NoError(t, app.Put(s, "/strict", edit, app.RequireIfMatch()))
	base := apptest.Serve(t, s)

	get := func() string { return apptest.Fetch(t, "GET", base+"/note").Header.Get("ETag") }
	tag := get()
	tagOf, err := app.TagOf(note{ID: 1, Text: "one"})
	require.NoError(t, err)
	require.Equal(t, tag, tagOf, "TagOf is the tag GET sends")

	for _, tt := range []struct {
		name, method, path string
		header             []string
		status             int
		code               string
	}{
		{"other tag", "PATCH", "/note?text=x", []string{"If-Match", `"nope"`}, http.StatusPreconditionFailed, "ERR_PRECONDITION_FAILED"},
		{"weak tag", "PATCH", "/note?text=x", []string{"If-Match", "W/" + tag}, http.StatusPreconditionFailed, "ERR_PRECONDITION_FAILED"},
		{"malformed", "PATCH", "/note?text=x", []string{"If-Match", "nope"}, http.StatusPreconditionFailed, "ERR_PRECONDITION_FAILED"},
		{"required", "PUT", "/strict?text=x", nil, http.StatusPreconditionRequired, "ERR_PRECONDITION_REQUIRED"},
		{"required, other tag", "PUT", "/strict?text=x", []string{"If-Match", `"nope"`}, http.StatusPreconditionFailed, "ERR_PRECONDITION_FAILED"},
	} {
		res := apptest.Fetch(t, tt.method, base+tt.path, tt.header...)
		assert.Equal(t, tt.status, res.StatusCode, tt.name)
		var body httpx.ErrorBody
		res.JSON(t, &body)
		assert.Equal(t, tt.code, body.Code, tt.name)
		assert.Equal(t, tt.status, body.StatusCode, tt.name)
	}
	assert.Zero(t, changes.Load(), "a failed precondition changes nothing")
	assert.Equal(t, tag, get())

	ok := apptest.Fetch(t, "PATCH", base+"/note?text=two", "If-Match", `"x", `+tag)
	require.Equal(t, http.StatusOK, ok.StatusCode)
	stale := apptest.Fetch(t, "PATCH", base+"/note?text=three", "If-Match", tag)
	assert.Equal(t, http.StatusPreconditionFailed, stale.StatusCode, "the tag read before the change is stale")
	assert.Equal(t, http.StatusOK, apptest.Fetch(t, "PATCH", base+"/note?text=four", "If-Match", "*").StatusCode)
	assert.Equal(t, http.StatusOK, apptest.Fetch(t, "PATCH", base+"/note?text=five").StatusCode, "no If-Match: proceeds")
	assert.Equal(t, http.StatusOK, apptest.Fetch(t, "PUT", base+"/strict?text=six", "If-Match", get()).StatusCode)
	assert.Equal(t, int64(4), changes.Load())
}

// TestCachingOptionErrors: a bad Cache-Control and RequireIfMatch on a
// GET are refused when the route is registered.
func TestCachingOptionErrors(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	h := func(context.Context, struct{}) (note, error) { return note{}, nil }
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"empty", app.Get(s, "/a", h, app.CacheControl(" ")), "invalid Cache-Control"},
		{"newline", app.Get(s, "/b", h, app.CacheControl("private\r\nSet-Cookie: a=b")), "invalid Cache-Control"},
		{"get", app.Get(s, "/c", h, app.RequireIfMatch()), "RequireIfMatch"},
	} {
		require.Error(t, tt.err, tt.name)
		assert.ErrorIs(t, tt.err, app.ErrInvalidHandler, tt.name)
		assert.Contains(t, tt.err.Error(), tt.want, tt.name)
	}
}

// TestCheckModified: without If-Match, If-Unmodified-Since earlier than
// the modification time fails; a date that does not parse is ignored.
func TestCheckModified(t *testing.T) {
	t.Parallel()
	mod := mustTime(t, "Tue, 08 Dec 2026 02:00:00 GMT")
	for _, tt := range []struct {
		pre  app.Preconditions
		fail bool
	}{
		{app.Preconditions{IfUnmodifiedSince: "Tue, 08 Dec 2026 02:00:00 GMT"}, false},
		{app.Preconditions{IfUnmodifiedSince: "Tue, 08 Dec 2026 01:59:59 GMT"}, true},
		{app.Preconditions{IfUnmodifiedSince: "yesterday"}, false},
		{app.Preconditions{IfMatch: `"a"`, IfUnmodifiedSince: "Tue, 08 Dec 2026 01:00:00 GMT"}, false},
		{app.Preconditions{IfMatch: "*"}, false},
	} {
		err := tt.pre.CheckModified(`"a"`, mod)
		if tt.fail {
			var he *httpx.Error
			require.ErrorAs(t, err, &he)
			assert.Equal(t, http.StatusPreconditionFailed, he.StatusCode)
		} else {
			assert.NoError(t, err, tt.pre)
		}
	}
	assert.Error(t, app.Preconditions{IfMatch: "*"}.Check(""), "* needs a resource")
	assert.True(t, strings.HasPrefix(app.Preconditions{IfMatch: `"a"`}.Check(`"b"`).Error(), "412"))
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	require.NoError(t, err)
	return tm
}
