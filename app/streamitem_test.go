package app_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
)

// TestStreamItemIsDescribed: a typed event stream declares its item type;
// RespondsAs on a sequential media type declares the body as one item,
// and on any other as the body.
func TestStreamItemIsDescribed(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Events(s, "/ticks", func(context.Context, struct{}, *app.EventStream[tick]) error { return nil }))
	require.NoError(t, s.Get("/flexible", func() error { return nil }, app.RespondsAs(200, "text/event-stream", tick{})))
	require.NoError(t, s.Get("/lines", func() error { return nil }, app.RespondsAs(200, "application/jsonl", tick{})))
	require.NoError(t, s.Get("/text", func() error { return nil }, app.RespondsAs(200, "text/event-stream", nil)))
	require.NoError(t, s.Get("/export", func() error { return nil }, app.RespondsAs(200, "text/csv", "")))
	require.NoError(t, s.Ready())
	typeTick, typeString := reflect.TypeFor[tick](), reflect.TypeFor[string]()
	want := map[string]app.ResponseInfo{
		"/ticks":    {Status: 200, MediaType: "text/event-stream", Item: typeTick},
		"/flexible": {Status: 200, MediaType: "text/event-stream", Item: typeTick},
		"/lines":    {Status: 200, MediaType: "application/jsonl", Item: typeTick},
		"/text":     {Status: 200, MediaType: "text/event-stream"},
		"/export":   {Status: 200, MediaType: "text/csv", Type: typeString},
	}
	for _, r := range s.Routes() {
		require.Len(t, r.Responses, 1, r.Path)
		res := r.Responses[0]
		res.Headers = nil
		assert.Equal(t, want[r.Path], res, r.Path)
	}
	for mt, want := range map[string]bool{"text/event-stream": true, "application/jsonl": true, "application/x-ndjson": true,
		"application/json-seq": true, "application/json": false, "text/csv": false, "multipart/mixed": false} {
		assert.Equal(t, want, app.IsSequential(mt), mt)
	}
}
