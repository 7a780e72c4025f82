package app_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// streamGuard bounds a wait that only a broken server would reach.
const streamGuard = 10 * time.Second

// streamTransports make a request over a real socket and through Inject
// and return the response with its body unread, to read as it streams.
var streamTransports = []struct {
	name string
	do   streamDo
}{
	{"socket", func(t *testing.T, s *app.Server, r *http.Request) *http.Response {
		addr := serve(t, s)
		r.URL.Scheme, r.URL.Host, r.RequestURI = "http", addr, ""
		res, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		return res
	}},
	{"inject", func(t *testing.T, s *app.Server, r *http.Request) *http.Response {
		res, err := s.Inject(r)
		require.NoError(t, err)
		return res
	}},
}

// streamDo sends r to s over one stream transport and returns the
// response with its body unread.
type streamDo func(t *testing.T, s *app.Server, r *http.Request) *http.Response

// eachStreamTransport runs test as a parallel subtest per stream
// transport, so that a streaming test covers the socket and Inject alike.
func eachStreamTransport(t *testing.T, test func(t *testing.T, do streamDo)) {
	t.Helper()
	for _, tr := range streamTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			test(t, tr.do)
		})
	}
}

// sse is a route handler that opens an event stream and hands it to
// stream, so that a test states only what it streams.
func sse(stream func(req *httpx.Request, es *httpx.EventStream) error) func(*httpx.Request, *httpx.Reply) error {
	return func(req *httpx.Request, rep *httpx.Reply) error {
		es, err := rep.SSE()
		if err != nil {
			return err
		}
		return stream(req, es)
	}
}

// waitFor returns what ch yields, failing t if nothing comes.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(streamGuard):
		require.FailNow(t, "timed out waiting for "+what)
		panic("unreachable")
	}
}

func TestSSEEventsArriveOneByOneWhileTheHandlerRuns(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		s := apptest.New(t)
		next := make(chan struct{})
		require.NoError(t, s.Get("/events", sse(func(_ *httpx.Request, es *httpx.EventStream) error {
			for _, id := range []string{"1", "2"} {
				if err := es.Send(httpx.Event{ID: id, Event: "tick", Data: "n=" + id}); err != nil {
					return err
				}
				<-next
			}
			return nil
		})))
		res := do(t, s, httptest.NewRequest(http.MethodGet, "/events", nil))
		defer res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
		body := bufio.NewReader(res.Body)
		assert.Equal(t, "id: 1\nevent: tick\ndata: n=1\n", apptest.ReadEvent(t, body), "the first event, while the handler waits")
		next <- struct{}{}
		assert.Equal(t, "id: 2\nevent: tick\ndata: n=2\n", apptest.ReadEvent(t, body))
		next <- struct{}{}
		rest, err := io.ReadAll(body)
		require.NoError(t, err)
		assert.Empty(t, rest, "the stream ends when the handler returns")
	})
}

func TestAStreamEndsWhenTheClientGoesAway(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		s := apptest.New(t)
		cause := make(chan error, 1)
		require.NoError(t, s.Get("/events", sse(func(req *httpx.Request, es *httpx.EventStream) error {
			for {
				select {
				case <-es.Context().Done():
					cause <- context.Cause(es.Context())
					assert.Equal(t, es.Context(), req.Context(), "the request's context is the stream's")
					return nil
				case <-time.After(time.Millisecond):
					if err := es.Comment("heartbeat"); err != nil && es.Context().Err() == nil {
						// A write fails before the context says so: the
						// socket is gone; wait for the context.
						continue
					}
				}
			}
		})))
		res := do(t, s, httptest.NewRequest(http.MethodGet, "/events", nil))
		_ = apptest.ReadEvent(t, bufio.NewReader(res.Body))
		require.NoError(t, res.Body.Close())
		err := waitFor(t, cause, "the handler to see the client leave")
		assert.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, httpx.ErrServerClosing)
	})
}

// closingStream is a route that streams until its context ends and then,
// if the server is closing, sends a last "close" event; saw gets the
// cause.
func closingStream(saw chan<- error) func(*httpx.Request, *httpx.Reply) error {
	return sse(func(_ *httpx.Request, es *httpx.EventStream) error {
		if err := es.Send(httpx.Event{Event: "open"}); err != nil {
			return err
		}
		<-es.Context().Done()
		cause := context.Cause(es.Context())
		saw <- cause
		if errors.Is(cause, httpx.ErrServerClosing) {
			return es.Send(httpx.Event{Event: "close"})
		}
		return nil
	})
}

func TestCloseEndsOpenStreamsAtItsStart(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		// The drain delay keeps Close busy for an hour: the stream
		// must hear of it at its start.
		s := app.New(app.WithDrainDelay(time.Hour))
		saw := make(chan error, 1)
		require.NoError(t, s.Get("/events", closingStream(saw)))
		res := do(t, s, httptest.NewRequest(http.MethodGet, "/events", nil))
		defer res.Body.Close()
		body := bufio.NewReader(res.Body)
		assert.Equal(t, "event: open\ndata: \n", apptest.ReadEvent(t, body))

		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel) // ends the drain delay on failure too
		closed := make(chan error, 1)
		go func() { closed <- s.Close(ctx) }()
		assert.ErrorIs(t, waitFor(t, saw, "the handler to see the close"), httpx.ErrServerClosing)
		assert.Equal(t, "event: close\ndata: \n", apptest.ReadEvent(t, body), "the handler's last event")
		cancel() // end the drain delay
		// Cutting the drain short cuts the close short too: it ends
		// cleanly, or with the cancellation if the stream's connection
		// had not gone idle yet.
		if err := <-closed; err != nil {
			assert.ErrorIs(t, err, context.Canceled)
		}
	})
}

func TestCloseDoesNotWaitOutItsDeadlineForStreams(t *testing.T) {
	t.Parallel()
	s := app.New()
	saw := make(chan error, 1)
	require.NoError(t, s.Get("/events", closingStream(saw)))
	require.NoError(t, s.Ready())
	addr, served := serveInBackground(t, s)
	res, err := http.Get("http://" + addr + "/events")
	require.NoError(t, err)
	defer res.Body.Close()
	body := bufio.NewReader(res.Body)
	_ = apptest.ReadEvent(t, body)

	// Without the streams' cancellation the drain waits for the handler
	// until ctx ends, and Close reports the deadline.
	ctx, cancel := context.WithTimeout(context.Background(), streamGuard)
	defer cancel()
	require.NoError(t, s.Close(ctx), "the drain ends with the stream, not at the deadline")
	require.NoError(t, <-served)
	assert.ErrorIs(t, <-saw, httpx.ErrServerClosing)
	assert.Equal(t, "event: close\ndata: \n", apptest.ReadEvent(t, body))
}

func TestAStreamOpenedWhileClosingEndsAtOnce(t *testing.T) {
	t.Parallel()
	s := app.New(app.WithDrainDelay(time.Hour)) // still served during the drain delay
	saw := make(chan error, 1)
	require.NoError(t, s.Get("/events", closingStream(saw)))
	require.NoError(t, s.Ready())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends the drain delay on failure too
	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }()
	require.Eventually(t, func() bool { return !s.IsReady() }, streamGuard, time.Millisecond)
	res, err := s.Inject(httptest.NewRequest(http.MethodGet, "/events", nil))
	require.NoError(t, err)
	time.AfterFunc(streamGuard, func() { res.Body.Close() }) // a stream that does not end fails the read
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, "event: open\ndata: \n\nevent: close\ndata: \n\n", string(body))
	assert.ErrorIs(t, <-saw, httpx.ErrServerClosing)
	cancel()
	<-closed
}

func TestStreamSendsTheBodyAsItIsRead(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		s := apptest.New(t)
		pr, pw := io.Pipe()
		require.NoError(t, s.Get("/log", func(rep *httpx.Reply) error {
			return rep.Code(http.StatusAccepted).Stream(pr)
		}))
		res := do(t, s, httptest.NewRequest(http.MethodGet, "/log", nil))
		defer res.Body.Close()
		assert.Equal(t, http.StatusAccepted, res.StatusCode)
		assert.Equal(t, "application/octet-stream", res.Header.Get("Content-Type"))
		assert.EqualValues(t, -1, res.ContentLength, "chunked: no length")
		_, err := io.WriteString(pw, "first ")
		require.NoError(t, err)
		assert.Equal(t, "first ", readN(t, res.Body, 6), "read while the handler still streams")
		_, err = io.WriteString(pw, "second")
		require.NoError(t, err)
		require.NoError(t, pw.Close())
		rest, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, "second", string(rest))
	})
}

func TestServeContentAnswersRangesAndConditionsWithTheirStatus(t *testing.T) {
	t.Parallel()
	modtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		status int
		body   string
	}{
		{"whole", nil, http.StatusOK, "0123456789"},
		{"range", map[string]string{"Range": "bytes=2-4"}, http.StatusPartialContent, "234"},
		{"unsatisfiable range", map[string]string{"Range": "bytes=20-"}, http.StatusRequestedRangeNotSatisfiable, ""},
		{"not modified", map[string]string{"If-Modified-Since": modtime.Format(http.TimeFormat)}, http.StatusNotModified, ""},
		{"modified since", map[string]string{"If-Modified-Since": modtime.Add(-time.Hour).Format(http.TimeFormat)}, http.StatusOK, "0123456789"},
	}
	for _, tr := range streamTransports {
		for _, tt := range tests {
			t.Run(tr.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				s := apptest.New(t)
				seen := make(chan int, 1)
				require.NoError(t, s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen <- rep.Status() }))
				require.NoError(t, s.Get("/file", func(rep *httpx.Reply) error {
					return rep.ServeContent("digits.txt", modtime, strings.NewReader("0123456789"))
				}))
				req := httptest.NewRequest(http.MethodGet, "/file", nil)
				for k, v := range tt.header {
					req.Header.Set(k, v)
				}
				res := tr.do(t, s, req)
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				assert.Equal(t, tt.status, res.StatusCode)
				if tt.body != "" {
					assert.Equal(t, tt.body, string(body))
					assert.Equal(t, "text/plain; charset=utf-8", res.Header.Get("Content-Type"))
				}
				assert.Equal(t, tt.status, waitFor(t, seen, "OnResponse"), "OnResponse sees the status written")
			})
		}
	}
}

// Stream writes a final status, as Send does: one it cannot write is
// refused before the stream begins, and the error path answers 500 — not
// 200 with an empty body while OnResponse reports the status asked for.
func TestStreamRefusesAStatusItCannotWrite(t *testing.T) {
	t.Parallel()
	for _, status := range []int{0, 1000, http.StatusEarlyHints} {
		for _, tr := range streamTransports {
			t.Run(tr.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				t.Parallel()
				s := apptest.New(t)
				seen := make(chan int, 1)
				refused := make(chan error, 1)
				require.NoError(t, s.AddHook(app.OnResponse, func(rep *httpx.Reply) { seen <- rep.Status() }))
				require.NoError(t, s.Get("/log", func(rep *httpx.Reply) error {
					err := rep.Code(status).Stream(strings.NewReader("never sent"))
					refused <- err
					return err
				}))
				res := tr.do(t, s, httptest.NewRequest(http.MethodGet, "/log", nil))
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
				assert.NotContains(t, string(body), "never sent")
				err = waitFor(t, refused, "the handler")
				assert.ErrorIs(t, err, httpx.ErrInvalidStatus)
				assert.EqualError(t, err, "invalid status code "+strconv.Itoa(status)+": Stream writes a final status, 200 to 999")
				assert.Equal(t, http.StatusInternalServerError, waitFor(t, seen, "OnResponse"), "OnResponse sees the status written")
			})
		}
	}
}

// A HEAD request (every GET route has its HEAD twin) gets a stream's
// headers and no body, as net/http discards body writes to HEAD without
// an error: the stream ends as soon as its headers are out — the
// context ends, EventStream.Send fails, Stream returns nil without
// reading its body — instead of running until the client leaves, with
// the client's next request on that connection waiting behind it.
func TestAHeadRequestEndsAStreamAfterItsHeaders(t *testing.T) {
	t.Parallel()
	routes := []struct {
		path, ctype string
		handler     func(ended chan<- error) any
	}{
		{"/events", "text/event-stream", func(ended chan<- error) any {
			return sse(func(_ *httpx.Request, es *httpx.EventStream) error {
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					if err := es.Send(httpx.Event{Event: "tick"}); err != nil {
						assert.ErrorIs(t, err, context.Canceled, "Send's error")
						ended <- context.Cause(es.Context())
						return nil
					}
					select {
					case <-tick.C:
					case <-es.Context().Done():
					}
				}
			})
		}},
		{"/stream", "application/octet-stream", func(ended chan<- error) any {
			return func(rep *httpx.Reply) error {
				var reads atomic.Int32
				err := rep.Stream(countedEndless{&reads})
				assert.Zero(t, reads.Load(), "reads of the body")
				ended <- err
				return err
			}
		}},
	}
	for _, rt := range routes {
		t.Run(rt.path, func(t *testing.T) {
			t.Parallel()
			s := apptest.New(t)
			ended := make(chan error, 1)
			require.NoError(t, s.Get(rt.path, rt.handler(ended)))
			require.NoError(t, s.Get("/ok", func() (string, error) { return "ok", nil }))
			c := dial(t, serve(t, s))
			br := bufio.NewReader(c)
			_, err := io.WriteString(c, "HEAD "+rt.path+" HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			res, err := http.ReadResponse(br, &http.Request{Method: http.MethodHead})
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, res.StatusCode)
			assert.Equal(t, rt.ctype, res.Header.Get("Content-Type"))
			handlerEnded := func(how string) {
				got := waitFor(t, ended, "the handler to end "+how)
				if rt.path == "/stream" {
					assert.NoError(t, got, "Stream returns nil")
				} else {
					assert.ErrorIs(t, got, context.Canceled, "the stream's context's cause")
				}
			}
			handlerEnded("over a socket")

			_, err = io.WriteString(c, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			res, body := readAnswer(t, br)
			assert.Equal(t, http.StatusOK, res.StatusCode, "the next request on the connection")
			assert.Equal(t, "ok", body)

			// In process too: Inject's body ends with the handler.
			res, err = s.Inject(httptest.NewRequest(http.MethodHead, rt.path, nil))
			require.NoError(t, err)
			defer res.Body.Close()
			time.AfterFunc(streamGuard, func() { res.Body.Close() }) // a stream that does not end fails the read
			b, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			assert.Empty(t, b)
			assert.Equal(t, rt.ctype, res.Header.Get("Content-Type"))
			handlerEnded("under Inject")
		})
	}
}

// countedEndless is a body that never ends and counts its reads.
type countedEndless struct{ reads *atomic.Int32 }

func (r countedEndless) Read(p []byte) (int, error) {
	r.reads.Add(1)
	return endless{}.Read(p)
}

// Under a request time-out a stream's context ends at the deadline too:
// its cause is a context.DeadlineExceeded, told apart from a client that
// went away and from a server closing. The stream, begun before the
// deadline, is left alone: the handler's last event still goes out.
func TestAStreamEndsAtTheRequestTimeoutWithADeadlineCause(t *testing.T) {
	t.Parallel()
	eachStreamTransport(t, func(t *testing.T, do streamDo) {
		s := apptest.New(t, app.WithRequestTimeout(100*time.Millisecond))
		saw := make(chan error, 1)
		require.NoError(t, s.Get("/events", sse(func(_ *httpx.Request, es *httpx.EventStream) error {
			if err := es.Send(httpx.Event{Event: "open"}); err != nil {
				return err
			}
			<-es.Context().Done()
			saw <- context.Cause(es.Context())
			return es.Send(httpx.Event{Event: "late"})
		})))
		res := do(t, s, httptest.NewRequest(http.MethodGet, "/events", nil))
		defer res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		body := bufio.NewReader(res.Body)
		assert.Equal(t, "event: open\ndata: \n", apptest.ReadEvent(t, body))
		cause := waitFor(t, saw, "the stream's context to end")
		assert.ErrorIs(t, cause, context.DeadlineExceeded)
		assert.NotErrorIs(t, cause, context.Canceled)
		assert.NotErrorIs(t, cause, httpx.ErrServerClosing)
		assert.Equal(t, "event: late\ndata: \n", apptest.ReadEvent(t, body), "the stream begun before the deadline is left alone")
	})
}

// TestCloseCutsAStreamWhoseClientStoppedReading: a stream blocked in a
// write to a client that reads nothing does not hold Close until the
// reply time-out (an hour here) or Close's deadline: the close gives the
// stream's connection a short write deadline, which interrupts the write,
// and Close returns once the handler has. The write is far larger than
// any kernel buffer, so it blocks whenever the close comes.
func TestCloseCutsAStreamWhoseClientStoppedReading(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<20)
	for _, tc := range []struct {
		name   string
		stream func(*httpx.Reply) error
	}{
		{"SSE", func(rep *httpx.Reply) error {
			es, err := rep.SSE()
			if err != nil {
				return err
			}
			return es.Send(httpx.Event{Data: big})
		}},
		{"Stream", func(rep *httpx.Reply) error { return rep.Stream(strings.NewReader(big)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			writing, returned := make(chan struct{}), make(chan error, 1)
			s := app.New(app.WithReplyTimeout(time.Hour))
			s.Get("/s", func(rep *httpx.Reply) error {
				close(writing)
				err := tc.stream(rep)
				returned <- err
				return err
			})
			require.NoError(t, s.Ready())
			addr, served := serveInBackground(t, s)
			conn := dial(t, addr)
			_, err := io.WriteString(conn, "GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
			require.NoError(t, err)
			<-writing // and never read

			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			closed := make(chan error, 1)
			go func() { closed <- s.Close(ctx) }()
			select {
			case err := <-closed:
				assert.NoError(t, err, "the stream ended before Close's deadline")
			case <-time.After(streamGuard):
				require.FailNow(t, "Close waited for a stream whose client reads nothing")
			}
			assert.Error(t, <-returned, "the blocked write failed")
			assert.NoError(t, <-served)
		})
	}
}
