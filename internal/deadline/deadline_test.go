package deadline

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// conn is a writer with a connection's deadlines, recording them.
type conn struct {
	http.ResponseWriter
	read, write time.Time
}

func (c *conn) SetReadDeadline(t time.Time) error  { c.read = t; return nil }
func (c *conn) SetWriteDeadline(t time.Time) error { c.write = t; return nil }

type wrapped struct{ http.ResponseWriter }

func (w *wrapped) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestDeadlinesReachTheConnectionThroughWrappers(t *testing.T) {
	t.Parallel()
	at := time.Unix(1e9, 0)
	tests := []struct {
		name string
		wrap func(http.ResponseWriter) http.ResponseWriter
	}{
		{"direct", func(w http.ResponseWriter) http.ResponseWriter { return w }},
		{"one wrapper", func(w http.ResponseWriter) http.ResponseWriter { return &wrapped{w} }},
		{"three wrappers", func(w http.ResponseWriter) http.ResponseWriter { return &wrapped{&wrapped{&wrapped{w}}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &conn{}
			w := tt.wrap(c)
			assert.True(t, SetRead(w, at))
			assert.True(t, SetWrite(w, at.Add(time.Second)))
			assert.Equal(t, at, c.read)
			assert.Equal(t, at.Add(time.Second), c.write)
		})
	}
}

// A writer with no connection underneath (a recorder, Inject's) reports
// that no deadline was set, and so does a wrapper that unwraps to nil.
func TestWritersWithoutAConnectionSetNoDeadline(t *testing.T) {
	t.Parallel()
	for _, w := range []http.ResponseWriter{httptest.NewRecorder(), &wrapped{httptest.NewRecorder()}, &wrapped{}} {
		assert.False(t, SetRead(w, time.Now()))
		assert.False(t, SetWrite(w, time.Now()))
	}
}

// Every reply arms a write deadline: finding the connection allocates
// nothing.
func TestSettingADeadlineAllocatesNothing(t *testing.T) {
	var w http.ResponseWriter = &wrapped{&wrapped{&conn{}}}
	at := time.Now()
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		SetWrite(w, at)
		SetRead(w, at)
	}))
}

// SetReply marks a deadline the connection may keep only for a time-out
// long enough that ReplySlack is at most an eighth of it.
func TestSetReplyMarksOnlyLongTimeOuts(t *testing.T) {
	t.Parallel()
	at := time.Unix(1e9, 0)
	for _, tt := range []struct {
		d      time.Duration
		marked bool
	}{
		{LooseReply - time.Nanosecond, false},
		{LooseReply, true},
		{30 * time.Second, true},
	} {
		c := &conn{}
		assert.True(t, SetReply(&wrapped{c}, at, tt.d))
		assert.True(t, c.write.Equal(at), "the deadline is the one given")
		assert.Equal(t, tt.marked, c.write.Location() == replyZone, "%v marked", tt.d)
	}
}
