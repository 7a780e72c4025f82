package river

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/riverqueue/river"
	"riverqueue.com/riverui"

	"github.com/burrow-go/burrow/app"
)

// MountUI mounts River's web UI (riverqueue.com/riverui) at prefix in s's
// context, as app.Server.Mount does: the context's middleware and request
// hooks apply to it, so the authentication that guards the context — an
// admin context, on the admin listener — guards the UI. It lists, retries
// and cancels jobs: never mount it where the public can reach it. The UI
// starts with the client at Ready and answers 503 before.
func (j *Jobs[TTx]) MountUI(s *app.Server, prefix string) error {
	ui := &uiHandler{prefix: strings.TrimSuffix(s.Prefix()+prefix, "/")}
	if err := j.declare("jobs UI at "+ui.prefix, func() { j.uis = append(j.uis, ui) }); err != nil {
		return err
	}
	return s.Mount(prefix, ui)
}

type uiHandler struct {
	prefix string
	h      atomic.Pointer[riverui.Handler]
}

// ServeHTTP gives the UI the path it expects, its prefix included, which
// the mount removed.
func (u *uiHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := u.h.Load()
	if h == nil {
		http.Error(w, "the jobs UI has not started", http.StatusServiceUnavailable)
		return
	}
	r2 := new(http.Request)
	*r2 = *r
	url := *r.URL
	url.Path, url.RawPath = u.prefix+r.URL.Path, ""
	r2.URL = &url
	h.ServeHTTP(w, r2)
}

// startUIs starts the mounted UIs on client c; they stop when ctx ends.
func startUIs[TTx any](ctx context.Context, uis []*uiHandler, c *river.Client[TTx], log *slog.Logger) error {
	for _, ui := range uis {
		h, err := riverui.NewHandler(&riverui.HandlerOpts{
			Endpoints: riverui.NewEndpoints(c, nil),
			Logger:    log,
			Prefix:    ui.prefix,
		})
		if err != nil {
			return fmt.Errorf("jobs UI at %s: %w", ui.prefix, err)
		}
		if err := h.Start(ctx); err != nil {
			return fmt.Errorf("jobs UI at %s: %w", ui.prefix, err)
		}
		ui.h.Store(h)
	}
	return nil
}
