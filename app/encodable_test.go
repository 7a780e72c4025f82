package app_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Reply types encoding/json cannot encode, and ones it can that look
// alike, named so the messages are stable.
type (
	chanOut   struct{ C chan int }
	deepOut   struct{ Items []struct{ Z complex128 } }
	pointKey  struct{ X, Y int }
	mapKeyOut struct{ Where map[pointKey]string }
	funcOut   struct {
		Name string
		Hook func() `json:"hook,omitempty"`
	}

	skippedFunc struct {
		Name string
		Hook func() `json:"-"`
		//lint:ignore U1000 unexported: encoding/json skips it, which is what is tested
		priv chan int
	}
	selfEncoded struct{ C chan int }
	textKey     struct{ X int }
	treeOut     struct {
		Kids []treeOut
		Tags map[textKey]int
		Any  any
	}
)

func (selfEncoded) MarshalJSON() ([]byte, error) { return []byte(`"self"`), nil }
func (textKey) MarshalText() ([]byte, error)     { return []byte("k"), nil }

// TestUnencodableReplyFailsReady: a typed route whose Out JSON cannot
// encode, anywhere within it, fails Ready naming the route and the type,
// instead of answering 500 to every request.
func TestUnencodableReplyFailsReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func(s *app.Server) error
		msg   string
	}{
		{"a channel field", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, struct{}) (chanOut, error) { return chanOut{}, nil })
		}, "route GET / (root) has an invalid handler: replies with app_test.chanOut, which cannot be encoded as JSON: field C: chan int is a channel"},
		{"a function, even omitempty", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, struct{}) (funcOut, error) { return funcOut{}, nil })
		}, "route GET / (root) has an invalid handler: replies with app_test.funcOut, which cannot be encoded as JSON: field Hook: func() is a function"},
		{"a complex number deep down", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, struct{}) (*deepOut, error) { return nil, nil })
		}, "route GET / (root) has an invalid handler: replies with *app_test.deepOut, which cannot be encoded as JSON: field Items: field Z: complex128 is a complex number"},
		{"a map with struct keys", func(s *app.Server) error {
			return app.Get(s, "/", func(context.Context, struct{}) (mapKeyOut, error) { return mapKeyOut{}, nil })
		}, "route GET / (root) has an invalid handler: replies with app_test.mapKeyOut, which cannot be encoded as JSON: field Where: " +
			"map[app_test.pointKey]string has keys of type app_test.pointKey, which are none of a string, an integer or an encoding.TextMarshaler"},
		{"the value of Created", func(s *app.Server) error {
			return app.Post(s, "/", func(context.Context, struct{}) (app.Created[chan int], error) { return app.Created[chan int]{}, nil })
		}, "route POST / (root) has an invalid handler: replies with chan int, which cannot be encoded as JSON: chan int is a channel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := startupError(app.New(), tt.build)
			require.Error(t, err)
			assert.ErrorIs(t, err, app.ErrInvalidHandler)
			assert.EqualError(t, err, tt.msg)
		})
	}
}

// TestEncodableRepliesPassReady: what encoding/json skips or encodes by
// a method, recursive types and interfaces pass, and are encoded; a
// preSerialization hook, which may replace the value, lets any Out pass.
func TestEncodableRepliesPassReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, app.Get(s, "/skipped", func(context.Context, struct{}) (skippedFunc, error) {
		return skippedFunc{Name: "a"}, nil
	}))
	require.NoError(t, app.Get(s, "/self", func(context.Context, struct{}) (selfEncoded, error) { return selfEncoded{}, nil }))
	require.NoError(t, app.Get(s, "/tree", func(context.Context, struct{}) (treeOut, error) {
		return treeOut{Kids: []treeOut{{}}, Tags: map[textKey]int{{}: 1}, Any: 1}, nil
	}))
	require.NoError(t, s.Register(func(s *app.Server) error {
		_ = s.AddHook(app.PreSerialization, app.PreSerializationFunc(func(_ *httpx.Request, _ *httpx.Reply, v any) (any, error) {
			return "replaced", nil
		}))
		return app.Get(s, "/replaced", func(context.Context, struct{}) (chanOut, error) { return chanOut{}, nil })
	}))
	for target, want := range map[string]string{
		"/skipped":  `{"Name":"a"}`,
		"/self":     `"self"`,
		"/tree":     `{"Kids":[{"Kids":null,"Tags":null,"Any":null}],"Tags":{"k":1},"Any":1}`,
		"/replaced": `"replaced"`,
	} {
		status, body, _ := do(t, s, "GET", target)
		assert.Equal(t, 200, status, target)
		assert.JSONEq(t, want, body, target)
	}
	_, err := json.Marshal(skippedFunc{})
	assert.NoError(t, err, "encoding/json agrees")
}
