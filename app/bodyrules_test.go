package app_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

type batchIn struct {
	app.In
	Body []newTodo `body:"" validate:"required,min=1,max=3"`
}

type labelsIn struct {
	app.In
	Body map[string]int `body:"" validate:"max=2"`
}

type requiredTodoIn struct {
	app.In
	Body newTodo `body:"" validate:"required"`
}

type requiredTextIn struct {
	app.In
	Body string `body:"" validate:"required"`
}

// bodyRulesServer has a route per body type whose body field carries
// rules of its own.
func bodyRulesServer(t *testing.T) *app.Server {
	t.Helper()
	s := app.New()
	require.NoError(t, app.Post(s, "/batch", func(_ context.Context, in batchIn) (int, error) { return len(in.Body), nil }))
	require.NoError(t, app.Post(s, "/labels", func(_ context.Context, in labelsIn) (int, error) { return len(in.Body), nil }))
	require.NoError(t, app.Post(s, "/todo", func(_ context.Context, in requiredTodoIn) (string, error) { return in.Body.Title, nil }))
	require.NoError(t, app.Post(s, "/text", func(_ context.Context, in requiredTextIn) (string, error) { return in.Body, nil }))
	return s
}

// TestBodyFieldRules sends bodies to routes whose body is an array, a
// map, a struct and a string, each with rules on the body field itself:
// they are enforced as a field's are, at the path "body", and a body
// that is required and absent is a 400 naming it, whatever its type.
func TestBodyFieldRules(t *testing.T) {
	t.Parallel()
	s := bodyRulesServer(t)
	const required = `"validation":[{"path":"body","rule":"required","message":"is required"}]`
	tests := []struct {
		name, path, ctype, body string
		status                  int
		want                    string
	}{
		{"an array in bounds", "/batch", "application/json", `[{"title":"a"},{"title":"b"}]`, 200, `2`},
		{"an empty array", "/batch", "application/json", `[]`, 400,
			`"validation":[{"path":"body","rule":"min","message":"must NOT have fewer than 1 items"}]`},
		{"too long an array", "/batch", "application/json", `[{"title":"a"},{"title":"b"},{"title":"c"},{"title":"d"}]`, 400,
			`"validation":[{"path":"body","rule":"max","message":"must NOT have more than 3 items"}]`},
		{"an array's item still checked", "/batch", "application/json", `[{"title":""}]`, 400,
			`"validation":[{"path":"body/0/title","rule":"required","message":"is required"}]`},
		{"a null array", "/batch", "application/json", `null`, 400, required},
		{"no array", "/batch", "", "", 400, required},
		{"no array, with a media type", "/batch", "application/json", "", 400, required},
		{"a map in bounds", "/labels", "application/json", `{"a":1,"b":2}`, 200, `2`},
		{"too large a map", "/labels", "application/json", `{"a":1,"b":2,"c":3}`, 400,
			`"validation":[{"path":"body","rule":"max","message":"must NOT have more than 2 properties"}]`},
		{"a map not required may be absent", "/labels", "", "", 200, `0`},
		{"a struct", "/todo", "application/json", `{"title":"a"}`, 200, `a`},
		{"an empty struct is present: its fields answer", "/todo", "application/json", `{}`, 400,
			`"validation":[{"path":"body/title","rule":"required","message":"is required"}]`},
		{"no struct", "/todo", "", "", 400, required},
		{"a text", "/text", "text/plain", "hi", 200, `hi`},
		{"no text", "/text", "", "", 400, required},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			var header []string
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			if tt.ctype != "" {
				header = []string{"Content-Type", tt.ctype}
			}
			res := apptest.Do(t, s, http.MethodPost, tt.path, body, header...)
			assert.Equal(t, tt.status, res.StatusCode, res.Body)
			if tt.status == 200 {
				assert.Equal(t, tt.want, res.Body)
			} else {
				assert.Contains(t, res.Body, tt.want)
			}
		})
	}
}

// TestBodyFieldRulesAreDescribed checks the route description: the field
// that carries the body's rules, and that the body is required.
func TestBodyFieldRulesAreDescribed(t *testing.T) {
	t.Parallel()
	s := bodyRulesServer(t)
	require.NoError(t, s.Ready())
	byPath := map[string]app.RouteInfo{}
	for _, r := range s.Routes() {
		byPath[r.Path] = r
	}
	assert.Equal(t, `body:"" validate:"required,min=1,max=3"`, string(byPath["/batch"].BodyField.Tag))
	assert.True(t, byPath["/batch"].BodyRequired)
	assert.False(t, byPath["/labels"].BodyRequired)
	assert.True(t, byPath["/todo"].BodyRequired)
}

type otherBatchRules struct {
	app.In
	Body []newTodo `body:"" validate:"max=9"`
}

type bodyDefault struct {
	app.In
	Body []int `body:"" default:"[1]"`
}

type structBound struct {
	app.In
	Body newTodo `body:"" validate:"min=1"`
}
