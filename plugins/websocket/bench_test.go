package websocket_test

// Benchmarks of a WebSocket route beside a hand-written coder/websocket
// handler serving the same echo, both over loopback sockets in this
// process:
//
//	go test -run '^$' -bench 'Echo|Idle' -benchmem ./plugins/websocket
//
// BenchmarkEcho* report msgs/s, one message a round trip (the client
// writes one, reads the answer); BenchmarkIdle* report B/conn, the heap
// and stacks of one idle connection, client side included (the same
// client for both, so the difference is the server's).

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/burrow-go/burrow/app"
	ws "github.com/burrow-go/burrow/plugins/websocket"
)

// benchEcho is the route: each message answered at once.
func benchEcho(ctx context.Context, _ struct{}, c *ws.Conn[say, said]) error {
	for {
		m, err := c.Receive(ctx)
		if err != nil {
			return nil
		}
		if err := c.Send(said{Text: m.Text}); err != nil {
			return err
		}
	}
}

// handEcho is the same echo written for net/http with coder/websocket:
// JSON decoded and encoded, the read limit set, nothing more.
func handEcho(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(ws.DefaultReadLimit)
	ctx := r.Context()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m say
		if err := json.Unmarshal(b, &m); err != nil {
			return
		}
		out, err := json.Marshal(said{Text: m.Text})
		if err != nil {
			return
		}
		if err := c.Write(ctx, websocket.MessageText, out); err != nil {
			return
		}
	}
}

// burrowURL serves the route on a loopback socket until b ends.
func burrowURL(b *testing.B) string {
	b.Helper()
	s := app.New(app.WithoutRequestLogging())
	if err := ws.Route(s, "/echo", benchEcho); err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = s.Close(ctx)
		<-done
	})
	return "ws://" + ln.Addr().String() + "/echo"
}

// handURL serves handEcho on a loopback socket until b ends.
func handURL(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(handEcho), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "ws://" + ln.Addr().String() + "/echo"
}

func BenchmarkEchoBurrow(b *testing.B) { benchEchoAt(b, burrowURL(b)) }
func BenchmarkEchoCoder(b *testing.B)  { benchEchoAt(b, handURL(b)) }

func benchEchoAt(b *testing.B, url string) {
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	msg := []byte(`{"text":"hello"}`)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

func BenchmarkIdleBurrow(b *testing.B) { benchIdleAt(b, burrowURL(b)) }
func BenchmarkIdleCoder(b *testing.B)  { benchIdleAt(b, handURL(b)) }

// idleConns is how many idle connections one measure holds.
const idleConns = 500

func benchIdleAt(b *testing.B, url string) {
	ctx := context.Background()
	var perConn float64
	for b.Loop() {
		before := inUse()
		conns := make([]*websocket.Conn, idleConns)
		for i := range conns {
			c, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				b.Fatal(err)
			}
			c.CloseRead(ctx) // answers pings and the close, as a browser does
			conns[i] = c
		}
		perConn = float64(inUse()-before) / idleConns
		for _, c := range conns {
			_ = c.Close(websocket.StatusNormalClosure, "")
		}
	}
	b.ReportMetric(perConn, "B/conn")
}

// inUse is the heap and the stacks in use, after a collection.
func inUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
