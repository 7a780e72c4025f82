package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

func TestEventStreamWritesEachEventInTheEventStreamFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		send func(*httpx.EventStream) error
		want string
	}{
		{"every field", func(es *httpx.EventStream) error {
			return es.Send(httpx.Event{ID: "7", Event: "tick", Data: `{"n":7}`, Retry: 1500 * time.Millisecond})
		}, "id: 7\nevent: tick\nretry: 1500\ndata: {\"n\":7}\n\n"},
		{"data only", func(es *httpx.EventStream) error { return es.Send(httpx.Event{Data: "hi"}) }, "data: hi\n\n"},
		{"multi-line data is one data line per line", func(es *httpx.EventStream) error {
			return es.Send(httpx.Event{Data: "a\nb\r\nc\rd"})
		}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"a trailing line break is an empty last line", func(es *httpx.EventStream) error {
			return es.Send(httpx.Event{Data: "a\n"})
		}, "data: a\ndata: \n\n"},
		{"an event type without data still dispatches", func(es *httpx.EventStream) error {
			return es.Send(httpx.Event{Event: "close"})
		}, "event: close\ndata: \n\n"},
		{"an empty event is an empty message", func(es *httpx.EventStream) error { return es.Send(httpx.Event{}) }, "data: \n\n"},
		{"an id alone sets it without an event", func(es *httpx.EventStream) error { return es.Send(httpx.Event{ID: "9"}) }, "id: 9\n\n"},
		{"comment", func(es *httpx.EventStream) error { return es.Comment("ping") }, ": ping\n\n"},
		{"multi-line comment", func(es *httpx.EventStream) error { return es.Comment("a\nb") }, ": a\n: b\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			es, err := newReply(w, nil).SSE()
			require.NoError(t, err)
			require.True(t, w.Flushed, "SSE flushes the headers at once")
			w.Flushed = false
			require.NoError(t, tt.send(es))
			assert.True(t, w.Flushed, "each event is flushed")
			assert.Equal(t, tt.want, w.Body.String())
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
			assert.Equal(t, "no-cache", w.Header().Get("Cache-Control"))
		})
	}
}

func TestEventStreamRefusesALineBreakInAField(t *testing.T) {
	t.Parallel()
	for _, e := range []httpx.Event{
		{ID: "1\ndata: forged"}, {ID: "1\r"}, {ID: "a\x00"}, {Event: "tick\nid: 2"}, {Event: "x\r"},
	} {
		w := httptest.NewRecorder()
		es, err := newReply(w, nil).SSE()
		require.NoError(t, err)
		assert.ErrorIs(t, es.Send(e), httpx.ErrEventField, "%q", e)
		assert.Empty(t, w.Body.String(), "nothing of the event is written")
	}
}

func TestSSEAfterTheReplyBeganIsAlreadySent(t *testing.T) {
	t.Parallel()
	rep := newReply(httptest.NewRecorder(), nil)
	require.NoError(t, rep.Send("x"))
	_, err := rep.SSE()
	assert.ErrorIs(t, err, httpx.ErrAlreadySent)
	assert.ErrorIs(t, rep.Stream(nil), httpx.ErrAlreadySent)
	assert.ErrorIs(t, rep.ServeContent("a", time.Time{}, nil), httpx.ErrAlreadySent)
}
