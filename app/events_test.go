package app_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/httpx"
)

type tick struct {
	N    int    `json:"n"`
	Note string `json:"note,omitempty"`
}

type ticksIn struct {
	app.In
	From int `query:"from" validate:"min=0"`
}

// ticks sends the ticks after the client's last one (or from ?from=),
// named by the parity, then waits for the end of its context and sends
// a "bye" event when the server closes.
func ticks(ctx context.Context, in ticksIn, es *app.EventStream[tick]) error {
	from := in.From
	if id := es.LastEventID(); id != "" {
		n, err := strconv.Atoi(id)
		if err != nil {
			return err
		}
		from = n + 1
	}
	for n := from; n < from+2; n++ {
		name := "even"
		if n%2 == 1 {
			name = "odd"
		}
		if err := es.Send(app.Event[tick]{ID: strconv.Itoa(n), Name: name, Data: tick{N: n, Note: "<" + name + ">"}}); err != nil {
			return err
		}
	}
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), httpx.ErrServerClosing) {
		return es.Send(app.Event[tick]{Name: "bye"})
	}
	return nil
}

func TestEventsSendsTypedEventsAfterTheLastEventID(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		s := apptest.New(t)
		require.NoError(t, app.Events(s, "/ticks", ticks))
		req := httptest.NewRequest(http.MethodGet, "/ticks?from=4", nil)
		res := do(t, s, req)
		defer res.Body.Close()
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		body := bufio.NewReader(res.Body)
		assert.Equal(t, "id: 4\nevent: even\ndata: {\"n\":4,\"note\":\"<even>\"}\n", apptest.ReadEvent(t, body))
		assert.Equal(t, "id: 5\nevent: odd\ndata: {\"n\":5,\"note\":\"<odd>\"}\n", apptest.ReadEvent(t, body))

		req = httptest.NewRequest(http.MethodGet, "/ticks", nil)
		req.Header.Set("Last-Event-ID", "5")
		res2 := do(t, s, req)
		defer res2.Body.Close()
		body2 := bufio.NewReader(res2.Body)
		assert.Equal(t, "id: 6\nevent: even\ndata: {\"n\":6,\"note\":\"<even>\"}\n", apptest.ReadEvent(t, body2), "resumed after the last id")
	})
}

func TestEventsRefusesBadInputBeforeTheStream(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Events(s, "/ticks", ticks))
	res := apptest.Get(t, s, "/ticks?from=-1")
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, res.Body, "querystring/from")
}

func TestEventsSendsHeartbeatsWhileQuiet(t *testing.T) {
	t.Parallel()
	s := apptest.New(t)
	require.NoError(t, app.Events(s, "/quiet", func(ctx context.Context, _ struct{}, es *app.EventStream[tick]) error {
		es.SetHeartbeat(time.Millisecond)
		<-ctx.Done()
		return nil
	}))
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/quiet", nil))
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	assert.Equal(t, ": ping\n", apptest.ReadEvent(t, body))
	assert.Equal(t, ": ping\n", apptest.ReadEvent(t, body), "and again")
}

func TestEventsEndAtCloseWithALastEvent(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, app.Events(s, "/ticks", ticks))
	require.NoError(t, s.Ready())
	addr, served := serveInBackground(t, s)
	res, err := http.Get("http://" + addr + "/ticks")
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	_ = apptest.ReadEvent(t, body)
	_ = apptest.ReadEvent(t, body)
	ctx, cancel := context.WithTimeout(context.Background(), streamGuard)
	defer cancel()
	require.NoError(t, s.Close(ctx), "Close ends the stream, not its deadline")
	require.NoError(t, <-served)
	assert.Equal(t, "event: bye\ndata: {\"n\":0}\n", apptest.ReadEvent(t, body))
	rest, err := io.ReadAll(body)
	require.NoError(t, err)
	assert.Empty(t, rest)
}

func TestEventsChecksTheEventTypeAtReady(t *testing.T) {
	t.Parallel()
	s := app.New()
	require.NoError(t, app.Events(s, "/bad", func(context.Context, struct{}, *app.EventStream[chan int]) error { return nil }))
	err := s.Ready()
	require.ErrorIs(t, err, app.ErrInvalidHandler)
	assert.Contains(t, err.Error(), "chan int")
}

func TestServerClosingIsDoneAtTheStartOfClose(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithDrainDelay(time.Hour))
	require.NoError(t, s.Ready())
	closing := s.Closing()
	assert.NoError(t, closing.Err())
	ctx, cancel := context.WithCancel(context.Background())
	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }()
	<-closing.Done() // during the drain delay, not after it
	assert.ErrorIs(t, context.Cause(closing), httpx.ErrServerClosing)
	cancel()
	<-closed
}

type message struct {
	Text string `json:"text" validate:"required,max=5"`
}

func TestDecoderHasTheRulesOfABody(t *testing.T) {
	t.Parallel()
	d, err := app.NewDecoder[message]()
	require.NoError(t, err)
	m, err := d.Decode([]byte(`{"text":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, message{Text: "hi"}, m)
	for in, want := range map[string]string{
		`{"text":"too long"}`:      "body/text must NOT have more than 5 characters",
		`{}`:                       "body/text is required",
		`{"text":1}`:               "body/text must be string",
		`{"text":"a","text":"b"}`:  "duplicate",
		`{"Text":"a"}`:             "Text",
		`{"text":"a"} {}`:          "after",
		``:                         "empty",
		`{"text":"a","more":[[[[[`: "",
	} {
		_, err := d.Decode([]byte(in))
		var he *httpx.Error
		require.ErrorAs(t, err, &he, "%s", in)
		assert.Equal(t, http.StatusBadRequest, he.StatusCode, in)
		assert.Contains(t, he.Message, want, in)
	}
	_, err = app.NewDecoder[struct {
		N int `validate:"format=email"`
	}]()
	assert.ErrorIs(t, err, app.ErrInvalidConstraint)
}

func TestCheckEncodable(t *testing.T) {
	t.Parallel()
	assert.NoError(t, app.CheckEncodable[message]())
	assert.ErrorIs(t, app.CheckEncodable[struct{ F func() }](), app.ErrInvalidHandler)
}
