package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// Listen boots the server (Ready) and serves HTTP on addr ("host:port")
// until Close. It returns nil after a graceful Close and the listener's
// error otherwise.
func (s *Server) Listen(addr string) error {
	if err := s.Ready(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve is Listen on a listener the caller made; it closes ln when it
// returns.
func (s *Server) Serve(ln net.Listener) error {
	a := s.a
	if err := s.Ready(); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: a.cfg.readHeaderTimeout,
		ReadTimeout:       a.cfg.readTimeout,
		WriteTimeout:      a.cfg.writeTimeout,
		IdleTimeout:       a.cfg.idleTimeout,
		MaxHeaderBytes:    a.cfg.maxHeaderBytes,
		ErrorLog:          zap.NewStdLog(a.log.Named("http")),
	}
	a.httpMu.Lock()
	if state(a.state.Load()) != stateReady {
		a.httpMu.Unlock()
		ln.Close()
		return ErrClosed
	}
	a.servers = append(a.servers, srv)
	a.httpMu.Unlock()

	a.log.Info("server listening", zap.String("address", "http://"+ln.Addr().String()))
	a.runOnListen(ln.Addr())
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-a.closed // return once Close has drained and finished
		return nil
	}
	return err
}

// Close shuts the server down gracefully, in this order:
//
//  1. readiness flips: IsReady is false;
//  2. during the drain delay (WithDrainDelay, default 0) requests are still
//     served, each answered with "connection: close", so a load balancer
//     has time to notice and clients reconnect elsewhere; after it,
//     requests that still arrive are answered 503 with "connection: close";
//  3. PreClose hooks run, parents first;
//  4. it stops accepting connections, closes idle ones, and lets in-flight
//     requests finish until ctx is done (then closes the rest);
//  5. OnClose hooks run, last registered first.
//
// It returns the hooks' errors and a drain that did not finish in time,
// joined. It is safe to call more than once; later calls wait for the
// first and return its result.
func (s *Server) Close(ctx context.Context) error {
	a := s.a
	a.mu.Lock()
	st := state(a.state.Load())
	if st == stateDraining || st == stateClosing || st == stateClosed {
		a.mu.Unlock()
		select {
		case <-a.closed:
			return a.closeErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var errs []error
	if d := a.cfg.drainDelay; d > 0 {
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

	if err := a.runPreClose(ctx); err != nil {
		errs = append(errs, err)
	}
	a.httpMu.Lock()
	servers := a.servers
	a.httpMu.Unlock()
	for _, srv := range servers {
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, err)
			srv.Close()
		}
	}
	if err := a.runOnClose(ctx); err != nil {
		errs = append(errs, err)
	}
	a.closeErr = errors.Join(errs...)
	a.state.Store(int32(stateClosed))
	close(a.closed)
	a.log.Info("server closed")
	return a.closeErr
}
