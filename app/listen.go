package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/internal/deadline"
	"github.com/burrow-go/burrow/internal/errkind"
)

// Listen boots the server (Ready) and serves HTTP on addr ("host:port")
// until Close. It returns nil once a graceful Close that began after the
// call has finished — during the boot or while serving — and the boot's
// or the listener's error otherwise. A closed server cannot be opened
// again: called once Close has begun, Listen returns an error wrapping
// ErrClosed at once. A main that runs Listen on a goroutine and calls
// Close on a signal treats that error as a graceful end too, since the
// signal may reach Close before the goroutine reaches Listen.
func (s *Server) Listen(addr string) error {
	if err := s.a.reopened("Listen"); err != nil {
		return err
	}
	if err := s.Ready(); err != nil {
		return s.a.bootEnded(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.serve(ln, "http://", nil)
}

// ListenTLS is Listen over TLS, with the certificate and key in the PEM
// files certFile and keyFile (certFile holds the server's certificate,
// then any intermediates), as net/http's ListenAndServeTLS reads them. It
// serves HTTP/2 to clients that offer it (ALPN "h2") and HTTP/1.1 to the
// others. The files are read once, after the boot and before the socket
// opens; a certificate that cannot load is returned as an error.
//
// For anything more — certificates obtained at run time (GetCertificate,
// ACME), client certificates, other TLS versions — make a tls.Config and
// Serve a tls.NewListener with it; list "h2" first in its NextProtos, or
// clients are served HTTP/1.1 only.
//
// Like Listen, it returns an error wrapping ErrClosed when called once
// Close has begun.
func (s *Server) ListenTLS(addr, certFile, keyFile string) error {
	if err := s.a.reopened("ListenTLS"); err != nil {
		return err
	}
	if err := s.Ready(); err != nil {
		return s.a.bootEnded(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("loading the TLS certificate: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.serve(ln, "https://", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
}

// Serve is Listen on a listener the caller made; it closes ln when it
// returns. A TLS listener (tls.NewListener) serves HTTP/2 on every
// connection that negotiated "h2", which its tls.Config's NextProtos must
// offer: net/http enables its HTTP/2 server for them. Like Listen, it
// returns an error wrapping ErrClosed when called once Close has begun.
//
// Listen, ListenTLS and Serve wrap each TCP connection they accept (not a
// TLS listener's) in one whose read deadlines cost nothing to move later,
// or sooner until a read reaches the connection: the idle, header, body
// and reply time-outs are set on every request. It is a net.Conn like the
// one it wraps, down to its deadlines, but for the reply time-out's own,
// which may come up to a second early (see WithReplyTimeout); a handler
// that hijacks the connection and needs the *net.TCPConn itself gets it
// from its NetConn() net.Conn method, as from a *tls.Conn's.
func (s *Server) Serve(ln net.Listener) error {
	if err := s.a.reopened("Serve"); err != nil {
		ln.Close()
		return err
	}
	if err := s.Ready(); err != nil {
		ln.Close()
		return s.a.bootEnded(err)
	}
	return s.serve(ln, "", nil)
}

// reopened is the error of call (Listen, ListenTLS, Serve) once Close has
// begun: a closed server is not opened again (Fastify refuses it too,
// FST_ERR_REOPENED_CLOSE_SERVER). A Close that begins after this check
// ends the call gracefully instead (bootEnded, serve).
func (a *instance) reopened(call string) error {
	switch state(a.state.Load()) {
	case stateDraining, stateClosing, stateClosed:
		return errkind.New(ErrClosed, "%s was called after Close; a closed server cannot be opened again", call)
	}
	return nil
}

// bootEnded is what Listen and Serve return when their Ready failed: nil
// when Close began during the call (a graceful end, once the close is
// done), the boot's error otherwise.
func (a *instance) bootEnded(err error) error {
	if !errors.Is(err, ErrClosed) {
		return err
	}
	<-a.closed
	return nil
}

// serve serves ln on a booted server, for Listen, ListenTLS and Serve:
// over TLS with tlsConfig when it is not nil. scheme is how the log
// names ln's address ("http://"; none for a listener the caller made,
// which Burrow cannot tell TLS from plain).
//
// The http.Server's TLSConfig stays nil for Serve: net/http's Serve then
// enables HTTP/2 for a TLS listener's "h2" connections. (With a TLSConfig
// set, it would only if that config, not the listener's, listed "h2".)
func (s *Server) serve(ln net.Listener, scheme string, tlsConfig *tls.Config) error {
	a := s.a
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: a.cfg.readHeaderTimeout,
		ReadTimeout:       a.cfg.readTimeout,
		WriteTimeout:      a.cfg.writeTimeout,
		IdleTimeout:       a.cfg.idleTimeout,
		MaxHeaderBytes:    a.cfg.maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(a.log.Named("http")),
		Protocols:         a.cfg.protocols,
		ConnState:         a.conns.track,
		ConnContext:       a.conns.connContext,
	}
	a.httpMu.Lock()
	if state(a.state.Load()) != stateReady {
		// Close began before this server could be registered for it to
		// shut down: nothing to serve, and a graceful end all the same.
		a.httpMu.Unlock()
		ln.Close()
		<-a.closed
		return nil
	}
	addr := scheme + ln.Addr().String()
	a.servers = append(a.servers, srv)
	a.addrs = append(a.addrs, addr)
	a.httpMu.Unlock()

	a.log.Info("server listening", zap.String("server", a.cfg.name), zap.String("address", addr))
	a.runOnListen(ln.Addr())
	// Its TCP connections take the deadlines net/http and Burrow set on
	// every request (idle, header, body, reply) at little cost: most
	// move a deadline later or clear it, which arms nothing, and the idle
	// one is armed by the listener's sweeper shortly before it comes.
	// srv.Serve closes ln when it returns, which stops the sweeper.
	ln = deadline.Listener(ln)
	var err error
	if tlsConfig != nil {
		// ServeTLS offers "h2" and "http/1.1" by ALPN as the server's
		// protocols allow, on a copy of tlsConfig.
		srv.TLSConfig = tlsConfig
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		<-a.closed // return once Close has drained and finished
		return nil
	}
	return err
}

// Close shuts the server down gracefully, in this order:
//
//  1. readiness flips: IsReady is false, and every open stream's context
//     (httpx.Reply.SSE, Stream) ends with the cause httpx.ErrServerClosing,
//     so its handler can send a last event and return; the stream's
//     connection gets a write deadline 500 ms away, so a client that
//     stopped reading cannot hold the handler (and the close) in a
//     blocked write;
//  2. during the drain delay (WithDrainDelay, default 0) requests are still
//     served, each answered with "connection: close", so a load balancer
//     has time to notice and clients reconnect elsewhere; after it,
//     requests that still arrive are answered 503 with "connection: close";
//  3. PreClose hooks run, parents first;
//  4. it stops accepting connections, closes idle ones, and lets in-flight
//     requests finish until ctx is done (then closes the rest);
//  5. it waits, until ctx is done, for the handlers of hijacked
//     connections (WebSockets) to return, and for their requests'
//     onResponse hooks and access log: net/http's Shutdown neither closes
//     nor waits for those connections, and neither does Close close them,
//     as their handlers own them. Such a handler learns of the close from
//     a PreClose hook (one that tells it to say goodbye and return). Close
//     waits only for connections of the servers Listen, ListenTLS and
//     Serve run, not for those of an http.Server of the caller's that has
//     the server as its Handler;
//  6. OnClose hooks run, last registered first.
//
// It returns the hooks' errors, a drain that did not finish in time and,
// when ctx ended first, how many hijacked connections' handlers still
// ran (wrapping ctx's error), joined; the OnClose hooks run in every
// case. It is safe to call more than once and from many goroutines;
// later calls wait for the first and return its result (or ctx's error
// if ctx ends first).
//
// Called while Ready is booting, Close stops the boot: no further plugin
// or OnReady hook runs, and Ready returns an error wrapping ErrClosed.
// The plugin body (or OnReady hook) running at that moment cannot be
// interrupted, so Close waits for it to return, then runs the close
// sequence for what has loaded (there is nothing to drain). If ctx ends
// first, Close returns ctx's error and the boot closes when it stops.
func (s *Server) Close(ctx context.Context) error {
	a := s.a
	a.mu.Lock()
	st := state(a.state.Load())
	switch st {
	case stateDraining, stateClosing, stateClosed:
		a.mu.Unlock()
		return a.waitClosed(ctx)
	case stateBooting:
		a.state.Store(int32(stateClosing))
		a.closeCtx = ctx
		self := s.inBody || a.inBoot()
		a.mu.Unlock()
		if self {
			// A plugin body closing its own server: the boot stops and
			// closes once the body returns.
			return nil
		}
		return a.waitClosed(ctx)
	}
	// Streams end now, not at ctx's deadline: their handlers see
	// httpx.ErrServerClosing and may send a last event, and the drain
	// below does not wait on them.
	a.stopStreams(httpx.ErrServerClosing)
	if d := a.cfg.drainDelay; d > 0 && st == stateReady {
		// Load balancers keep sending until their health check notices;
		// those requests are still served, on connections that close after
		// the reply, so clients reconnect to another instance.
		a.state.Store(int32(stateDraining))
		a.mu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		a.mu.Lock()
	}
	a.state.Store(int32(stateClosing))
	a.mu.Unlock()
	return a.shutdown(ctx)
}

// waitClosed waits for the close in progress and returns its result.
func (a *instance) waitClosed(ctx context.Context) error {
	select {
	case <-a.closed:
		return a.closeErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shutdown runs the close sequence once Close has begun and no boot is
// running: PreClose hooks, the servers' shutdown, the wait for hijacked
// connections' handlers, OnClose hooks.
func (a *instance) shutdown(ctx context.Context) error {
	var errs []error
	if err := a.runPreClose(ctx); err != nil {
		errs = append(errs, err)
	}
	a.httpMu.Lock()
	servers, addrs := a.servers, a.addrs
	a.httpMu.Unlock()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
			srv.Close()
		}
	}
	// Shutdown neither closes nor waits for hijacked connections.
	if err := a.waitConns(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := a.runOnClose(ctx); err != nil {
		errs = append(errs, err)
	}
	a.closeErr = errors.Join(errs...)
	a.state.Store(int32(stateClosed))
	close(a.closed)
	// The root context's name and the addresses tell apart the servers
	// of one process (a public one and an admin one).
	a.log.Info("server closed", zap.String("server", a.cfg.name), zap.Strings("addresses", addrs))
	return a.closeErr
}
